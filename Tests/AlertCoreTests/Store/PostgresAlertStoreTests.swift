import Foundation
import Testing
import Synchronization
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

    /// A new session whose set-up fails (a hot standby, reached after a
    /// failover, refuses `LISTEN`) is not kept as if set up: the next use
    /// connects again and sets it up. Kept, the listener sat on it deaf
    /// until the session happened to drop.
    /// A database alertd must leave alone is `store_incompatible` at start,
    /// as API.md says, with words that say why: a newer alertd's schema, or
    /// a table of alertd's name that is not alertd's (its version text,
    /// where reading it failed with a bare SQL error, as `store_io`).
    @Test func aDatabaseAlertdMustLeaveAloneIsIncompatible() throws {
        let server = try PostgresServer.shared()
        for (setUp, words) in [("CREATE TABLE alertd_schema (version INTEGER NOT NULL); INSERT INTO alertd_schema VALUES (999)", "newer alertd"),
                               ("CREATE TABLE alertd_schema (version TEXT NOT NULL); INSERT INTO alertd_schema VALUES ('1')", "not alertd's")] {
            let url = try server.makeDatabase()
            try PostgresConnection(url: url, redactedURL: url).withLock { conn throws(PostgresError) in try conn.execute(setUp) }
            do {
                let store = try PostgresAlertStore(url: url, node: "test", readers: 1)
                store.close()
                Issue.record("opened a database it must leave alone: \(setUp)")
            } catch {
                #expect(error.code == .incompatible && error.message.contains(words), "\(error)")
            }
        }
    }

    @Test func aSessionWhoseSetUpFailedIsNotKept() throws {
        let url = try PostgresServer.shared().makeDatabase()
        let setUps = Mutex(0), refuse = Mutex(false)
        let connection = try PostgresConnection(url: url, redactedURL: url) { _ throws(PostgresError) in
            setUps.withLock { $0 += 1 }
            if refuse.withLock({ $0 }) {
                throw PostgresError(sqlState: "25006", message: "cannot execute LISTEN during recovery", context: "set up", connectionLost: false)
            }
        }
        let other = try PostgresConnection(url: url, redactedURL: url)
        try connection.withLock { conn throws(PostgresError) in
            let backend = try conn.scalar("SELECT pg_backend_pid()") ?? 0
            _ = try other.withLock { o throws(PostgresError) in try o.query("SELECT pg_terminate_backend($1)", [.integer(backend)]) }
            // libpq learns the session is gone when a call on it fails.
            #expect(throws: PostgresError.self) { _ = try conn.query("SELECT 1") }
            refuse.withLock { $0 = true }
            #expect(throws: PostgresError.self) { try conn.ensureConnected() }
            #expect(setUps.withLock { $0 } == 2)
            refuse.withLock { $0 = false }
            Thread.sleep(forTimeInterval: 0.3)  // past the first back-off
            try conn.ensureConnected()
            #expect(setUps.withLock { $0 } == 3, "the session whose set-up failed was kept")
            #expect(try conn.scalar("SELECT 1") == 1)
        }
    }

    /// A database that takes no writes (a standby, or made read-only) still
    /// answers reads: a write's refusal is the store's failure, health's
    /// too, until a probe on a new session finds it writable. Health said
    /// ok while every alert was refused.
    @Test func aDatabaseThatTakesNoWritesIsTheStoresFailure() async throws {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let name = String(url.split(separator: "/").last!)
        let store = try PostgresAlertStore(url: url, node: "test", readers: 1)
        defer { store.close() }
        func submit(_ title: String) async throws(StoreError) {
            _ = try await store.submit([AlertSubmission(alert: Alert(spec: try! AlertSpec.Builder().title(title).build().get()), presenters: [])])
        }
        try await submit("before")
        let admin = try PostgresConnection(url: server.adminURL, redactedURL: server.adminURL)
        func set(_ statement: String, dropSessions: Bool) throws {
            try admin.withLock { conn throws(PostgresError) in
                try conn.execute("ALTER DATABASE \(name) \(statement)")
                if dropSessions { _ = try conn.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [.text(name)]) }
            }
        }
        try set("SET default_transaction_read_only = on", dropSessions: true)
        await #expect(throws: StoreError.self) { try await submit("refused") }
        #expect(store.lastWriteFailure?.message.contains("takes no writes") == true, "\(String(describing: store.lastWriteFailure))")
        #expect(try await store.counts().openAlerts == 1, "reads still work")
        try await Task.sleep(for: .seconds(1.5))
        #expect(store.lastWriteFailure != nil, "a probe took a read for a write")
        // Sessions already open keep the read-only default: the probe's must be new.
        try set("RESET default_transaction_read_only", dropSessions: false)
        let recovered = await eventually(.seconds(10)) { store.lastWriteFailure == nil }
        #expect(recovered)
        try await submit("after")
        #expect(try await store.counts().openAlerts == 2)
    }

    /// A user whose grants on alertd's tables were revoked reads but cannot
    /// write: the check says which tables, a write's refusal is the store's
    /// failure (health's too) until a probe finds the grants back. Health
    /// said ok while every alert was refused, the check passed, and the
    /// error sent the operator to the password and the database's name.
    @Test func aUserWithoutItsGrantsIsTheStoresFailureAndTheCheckSaysSo() async throws {
        let url = try PostgresServer.shared().makeDatabase()
        let name = String(url.split(separator: "/").last!)
        try PostgresAlertStore(url: url, node: "maker", readers: 1).close()
        let admin = try PostgresConnection(url: url, redactedURL: url)
        func run(_ statement: String) throws { try admin.withLock { conn throws(PostgresError) in try conn.execute(statement) } }
        let role = "grantee_\(name)"
        try run("CREATE ROLE \(role) LOGIN")
        try run("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO \(role)")
        try run("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO \(role)")
        let grantee = url.replacingOccurrences(of: "//alertd@", with: "//\(role)@")
        try PostgresAlertStore.checkCompatible(url: grantee)
        let store = try PostgresAlertStore(url: grantee, node: "test", readers: 1)
        defer { store.close() }
        func submit(_ title: String) async throws(StoreError) {
            _ = try await store.submit([AlertSubmission(alert: Alert(spec: try! AlertSpec.Builder().title(title).build().get()), presenters: [])])
        }
        try await submit("before")

        try run("REVOKE INSERT ON alerts FROM \(role)")
        let checked = #expect(throws: StoreError.self) { try PostgresAlertStore.checkCompatible(url: grantee) }
        #expect(checked?.message.contains("may not write alertd's tables") == true && checked?.message.contains("(alerts)") == true,
                "\(String(describing: checked))")
        await #expect(throws: StoreError.self) { try await submit("refused") }
        #expect(store.lastWriteFailure?.message.contains("lacks a privilege alertd needs") == true, "\(String(describing: store.lastWriteFailure))")
        #expect(try await store.counts().openAlerts == 1, "reads still work")
        // A write to a table it may still write does not end it: each one did,
        // and health went between 503 and 200 while every alert was refused.
        let silence = Silence(matchers: [try LabelMatcher(parsing: #"host="db""#)], startsAt: Date(), endsAt: Date().addingTimeInterval(60),
                              createdBy: "t", comment: "c")
        _ = try await store.saveSilence(silence, replacing: nil, now: Date())
        #expect(store.lastWriteFailure != nil, "another table's write ended the failure")
        try await Task.sleep(for: .seconds(1.5))
        // Still the grants' words: the probe's own look said a read-only database.
        #expect(store.lastWriteFailure?.message.contains("lacks a privilege alertd needs") == true, "\(String(describing: store.lastWriteFailure))")

        try run("GRANT INSERT ON alerts TO \(role)")
        // Back while writes keep coming: each second has work, and the probe
        // that ends it waited for a quiet one.
        var n = 0
        let back = await eventually(.seconds(10)) {
            n += 1
            try? await submit("while writing \(n)")
            return store.lastWriteFailure == nil
        }
        #expect(back, "writes succeed, and the store still says it takes none")
        let before = try await store.counts().openAlerts
        try await submit("after")
        #expect(try await store.counts().openAlerts == before + 1)
    }

    /// A server that stops answering (frozen, or cut off without a reset)
    /// leaves the session open and silent: a statement is given up after
    /// its timeout, as a lost session, and the next one gets a new session.
    /// Before, it waited as long as the silence lasted, and so did every
    /// request behind it, the health check too.
    /// A read waited out behind another session's lock is not run again
    /// on a new session, as one on a session that died idle is: every read
    /// answered 503 after twice the timeout, 30 s.
    @Test func aReadWaitedOutBehindALockIsNotRunAgain() throws {
        let url = try PostgresServer.shared().makeDatabase()
        let holder = try PostgresConnection(url: url, redactedURL: url)
        try holder.withLock { conn throws(PostgresError) in
            try conn.execute("CREATE TABLE held (x int)")
            try conn.execute("BEGIN")
            try conn.execute("LOCK TABLE held IN ACCESS EXCLUSIVE MODE")
        }
        defer { try? holder.withLock { conn throws(PostgresError) in try conn.execute("ROLLBACK") } }
        let reader = try PostgresConnection(url: url, redactedURL: url)
        let runs = Mutex(0)
        try reader.withLock { conn throws(PostgresError) in
            do throws(PostgresError) {
                _ = try conn.retryingIfDeadWhileIdle { c throws(PostgresError) in
                    runs.withLock { $0 += 1 }
                    return try c.query("SELECT count(*) FROM held", timeout: .milliseconds(400))
                }
                Issue.record("a read behind the lock answered")
            } catch {
                #expect(error.waitedOut, "\(error)")
            }
        }
        #expect(runs.withLock { $0 } == 1)
    }

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
