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

    @Test func aDeadlineSoonerThanTheNextLookWakesItAndALaterOneDoesNot() async throws {
        let store = InMemoryAlertStore()
        let reports = Locked<[MaintenanceReport]>([])
        // A tick far longer than the test: only a wake-up can make it look in time.
        let maintenance = MaintenanceService(store: store, retention: nil, tick: .seconds(30)) { report in
            reports.withLock { $0.append(report) }
        }
        let run = Task { await maintenance.run() }
        defer { run.cancel() }
        // Let the first round find nothing and go to sleep for its tick.
        try await Task.sleep(for: .milliseconds(200))
        let spec = try AlertSpec.Builder().title("short-lived").expires(after: .seconds(1)).build().get()
        let submission = AlertSubmission(alert: Alert(spec: spec), presenters: ["log"])
        _ = try await store.submit([submission])
        let deadline = try #require(submission.deadline)
        // Later than the sleep's end would be: no wake-up, nothing seen.
        maintenance.wake(before: Date().addingTimeInterval(3_600))
        try await Task.sleep(for: .milliseconds(1_300))
        #expect(reports.value.isEmpty)
        maintenance.wake(before: deadline)
        let until = ContinuousClock.now + .seconds(5)
        while reports.value.isEmpty, ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(10)) }
        #expect(reports.value.first?.expired == [submission.alert.id])
        await maintenance.shutdownGracefully()
        await run.value
    }

    /// More closed alerts past their retention than one batch are pruned
    /// batch after batch, not one batch a minute: a thousand closings a
    /// minute, sustained, outgrew that.
    @Test func aPruneThatFillsItsBatchGoesOnSoon() async throws {
        let store = InMemoryAlertStore()
        let old = Date().addingTimeInterval(-7_200)
        for chunk in 0..<5 {
            var submissions: [AlertSubmission] = []
            for i in 0..<500 {
                submissions.append(AlertSubmission(alert: Alert(spec: try AlertSpec.Builder().title("a\(chunk)-\(i)").build().get(), at: old),
                                                   presenters: []))
            }
            _ = try await store.submit(submissions)
            for s in submissions { _ = try await store.decide(s.alert.id, AlertDecision(outcome: .resolved, actor: "t", at: old)) }
        }
        let maintenance = MaintenanceService(store: store, retention: .seconds(3_600), tick: .seconds(1))
        let run = Task { await maintenance.run() }
        // 2,500 at 1,000 a batch: three batches, a tenth of a second apart,
        // not a tick: a second apart, 100,000 closed at once took 100 s.
        let started = ContinuousClock.now
        let pruned = try await eventually(.seconds(8), every: .milliseconds(50)) {
            await store.alerts(matching: AlertQuery(limit: 10)).alerts.isEmpty
        }
        #expect(pruned)
        #expect(ContinuousClock.now - started < .milliseconds(1_500))
        await maintenance.shutdownGracefully()
        await run.value
    }
}
