import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdPostgresStore
@testable import AlertdPostgres

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

    /// A server that stops answering (frozen, or cut off without a reset)
    /// leaves the session open and silent: a statement is given up after
    /// its timeout, as a lost session, and the next one gets a new session.
    /// Before, it waited as long as the silence lasted, and so did every
    /// request behind it, the health check too.
    @Test func aSessionThatStopsAnsweringIsGivenUpOn() throws {
        let url = try PostgresServer.shared().makeDatabase()
        let connection = try PostgresConnection(url: url, redactedURL: url)
        try connection.withLock { conn throws(PostgresError) in
            let backend = pid_t(try conn.scalar("SELECT pg_backend_pid()") ?? 0)
            #expect(backend > 0 && kill(backend, SIGSTOP) == 0)
            defer { kill(backend, SIGCONT) }
            let start = ContinuousClock.now
            do throws(PostgresError) {
                _ = try conn.query("SELECT 1", timeout: .milliseconds(500))
                Issue.record("a stopped backend answered")
            } catch {
                #expect(error.connectionLost && error.message.contains("sent nothing for"), "\(error)")
            }
            #expect(ContinuousClock.now - start < .seconds(3))
            #expect(try conn.scalar("SELECT 1") == 1)
        }
    }
}
