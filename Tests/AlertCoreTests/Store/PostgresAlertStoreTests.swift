import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdPostgresStore

@Suite struct PostgresAlertStoreTests {
    /// A server restart closes every idle session, and libpq learns of it
    /// only when the next call on it fails. That call is a read or a write
    /// the database could have served: each runs again on a new session,
    /// so once the server is back no request fails for a session it lost.
    @Test func aRestartedServerFailsNoReadOrWriteAfterward() async throws {
        let server = try PostgresServer()
        let store = try PostgresAlertStore(url: try server.makeDatabase(), node: "test", readers: 4)
        defer { store.close() }
        /// Eight reads at once, so every reader's session is in use.
        func readAll() async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { _ = try await store.counts() } }
                try await group.waitForAll()
            }
        }
        try await readAll()
        _ = try await store.submit([AlertSubmission(alert: Alert(spec: try AlertSpec.Builder().title("before").build().get()), presenters: [])])
        server.stop()
        try server.start()
        try await readAll()
        let alert = Alert(spec: try AlertSpec.Builder().title("after").build().get())
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: [])])
        #expect(try await store.record(id: alert.id) != nil)
        #expect(try await store.counts().openAlerts == 2)
    }
}
