import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdDelivery

@Suite struct MaintenanceServiceTests {
    @Test func expiresWhatIsDueReportsItAndStopsWhenAsked() async throws {
        let store = InMemoryAlertStore()
        let spec = try AlertSpec.Builder().title("stale").expires(after: .seconds(60)).build().get()
        // Accepted two minutes ago: its minute is up.
        let alert = Alert(spec: spec, at: Date().addingTimeInterval(-120))
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: ["log"])])
        let reports = Locked<[MaintenanceReport]>([])
        let maintenance = MaintenanceService(store: store, retention: nil, tick: .milliseconds(20)) { report in
            reports.withLock { $0.append(report) }
        }
        let run = Task { await maintenance.run() }
        let deadline = ContinuousClock.now + .seconds(5)
        while reports.value.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(reports.value.first?.expired == [alert.id])
        #expect(await store.record(id: alert.id)?.alert.state == .expired)

        let asked = ContinuousClock.now
        await maintenance.shutdownGracefully()
        await run.value
        #expect(ContinuousClock.now - asked < .seconds(1))
    }
}
