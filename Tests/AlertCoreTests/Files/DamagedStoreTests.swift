import Foundation
import Synchronization
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdSQLite
@testable import AlertdSQLiteStore
@testable import AlertdHTTP
@testable import AlertdAPI

#if canImport(Glibc)
import Glibc
#endif

/// A database file SQLite finds damaged in a write (a claim of deliveries)
/// makes health say so, and keeps saying it: no later write repairs the
/// damaged pages. Health had answered ok while every claim failed and
/// nothing was delivered (found by a crash-consistency attack).
@Suite struct DamagedStoreTests {
    /// Overwrites the first page of `table` in the stopped store at `path`
    /// (its WAL copied in first) with garbage.
    static func garble(firstPageOf table: String, in path: String) throws {
        let (root, pageSize) = try { () throws -> (Int64, Int64) in
            let c = try SQLiteConnection(path: path)
            try c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return (try #require(try c.scalar("SELECT rootpage FROM sqlite_master WHERE name = '\(table)'")),
                    try #require(try c.scalar("PRAGMA page_size")))
        }()
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try file.seek(toOffset: UInt64((root - 1) * pageSize))
        file.write(Data(repeating: 0xA5, count: Int(pageSize)))
        try file.close()
    }

    @Test func aDamagedDatabaseIsReportedUntilARestart() async throws {
        // Deliveries owed to a receiver that is not there: pending at the stop.
        let hook: [String: Any] = ["type": "webhook", "url": "http://127.0.0.1:\(try TestDaemon.freePort())/x"]
        let d = try TestDaemon(config: ["presenters": ["hook": hook], "default_route": ["presenters": ["hook"]],
                                        "retry": ["initial_delay": "1s", "max_delay": "2s", "jitter": false]])
        try await d.start()
        for i in 0..<20 { _ = try await d.send(["title": "owed \(i)"]) }
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)

        // The deliveries table's first page, garbled; its due index (which health counts by) left whole.
        try Self.garble(firstPageOf: "deliveries", in: d.stateDir + "/alertd.db")

        try await d.start(anyAnswer: true)
        func health() async throws -> (Int, [String: Any]) {
            let r = try await d.request("GET", "/v1/health")
            return (r.status, try JSONSerialization.jsonObject(with: r.body) as? [String: Any] ?? [:])
        }
        let damaged = try await eventually(.seconds(10)) { try await health().1["store"] as? String == "damaged" }
        let (status, body) = try await health()
        #expect(damaged, "\(body) log:\n\(d.log)")
        #expect(status == 503 && body["status"] as? String == "degraded", "\(body)")
        #expect((body["reason"] as? String)?.contains("damaged") == true, "\(body)")
        #expect(d.log.contains("database file is damaged; alertd cannot claim or record deliveries until it is restarted"), "\(d.log)")
        // A write elsewhere would miss the damaged pages, and be out of reach
        // after the restart that refuses the file: refused, and the damage stays said.
        let silence = try await d.request("POST", "/api/v2/silences", json: [
            "matchers": [["name": "a", "value": "b", "isRegex": false]], "startsAt": "2026-01-01T00:00:00Z",
            "endsAt": "2100-01-01T00:00:00Z", "createdBy": "t", "comment": "c"])
        #expect(silence.status == 503, "\(String(decoding: silence.body, as: UTF8.self))")
        #expect(silence.headers[APIError.codeHeader] == "store_corrupt")
        let alert = try await d.request("POST", "/v1/alerts", json: ["title": "after the damage"])
        #expect(alert.status == 503 && (try? HTTPErrorBody.decode(alert.body))?.code == "store_corrupt",
                "\(String(decoding: alert.body, as: UTF8.self))")
        try await Task.sleep(for: .seconds(1))
        #expect(try await health().1["store"] as? String == "damaged")
    }

    /// Damage a read finds (a listing) refuses writes as damage a write
    /// finds does: before, the store answered 503 to reads and went on
    /// acknowledging alerts into a file the next start refuses.
    @Test func damageFoundByAReadRefusesWrites() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/alertd.db"
        do {
            let store = try SQLiteAlertStore(path: path)
            for i in 0..<50 {
                let alert = Alert(spec: try AlertSpec.Builder().title("alert \(i)").message(String(repeating: "m", count: 500)).build().get())
                _ = try await store.submit([AlertSubmission(alert: alert, presenters: [])])
            }
            store.close()
        }
        try Self.garble(firstPageOf: "alerts", in: path)

        let store = try SQLiteAlertStore(path: path)
        defer { store.close() }
        await #expect(throws: StoreError.self) { _ = try await store.alerts(matching: AlertQuery()) }
        #expect(store.lastWriteFailure?.code == .corrupt, "\(String(describing: store.lastWriteFailure))")
        let late = Alert(spec: try AlertSpec.Builder().title("late").build().get())
        do {
            _ = try await store.submit([AlertSubmission(alert: late, presenters: [])])
            Issue.record("an alert was taken into a damaged file")
        } catch {
            #expect(error.code == .corrupt, "\(error)")
        }
    }

    /// A journal that holds frames beside a database file missing or
    /// empty (deleted or cut outside alertd) is refused: SQLite would start
    /// an empty store and throw the journal away, alerts and all, unsaid.
    @Test func aJournalWithoutItsDatabaseIsRefused() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/alertd.db"
        try Data(repeating: 1, count: 5_000).write(to: URL(fileURLWithPath: path + "-wal"))
        for database in [nil, Data()] {
            if let database { try database.write(to: URL(fileURLWithPath: path)) }
            let error = #expect(throws: StoreError.self) { try SQLiteAlertStore(path: path) }
            #expect(error?.code == .corrupt, "\(String(describing: error))")
            #expect(error?.message.contains("\(path)-wal holds 5000 bytes") == true, "\(String(describing: error))")
        }
        // An empty journal is no loss: the store opens (fresh).
        try Data().write(to: URL(fileURLWithPath: path + "-wal"))
        try FileManager.default.removeItem(atPath: path)
        let store = try SQLiteAlertStore(path: path)
        store.close()
    }

    /// A row alertd cannot make sense of (SQLite read it fine) is one bad
    /// row, not a damaged file: a write that meets it fails, and the store
    /// takes the next write and says nothing of damage.
    @Test func anUnreadableRowIsNotADamagedFile() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/alertd.db"
        let store = try SQLiteAlertStore(path: path)
        defer { store.close() }
        let alert = Alert(spec: try AlertSpec.Builder().title("odd").build().get())
        _ = try await store.submit([AlertSubmission(alert: alert, presenters: [])])
        let poke = try SQLiteConnection(path: path)
        try poke.execute("UPDATE alerts SET state = 'weird' WHERE id = '\(alert.id)'")
        await #expect(throws: StoreError.self) { _ = try await store.decide(alert.id, AlertDecision(outcome: .resolved, actor: "t", at: Date())) }
        _ = try await store.submit([AlertSubmission(alert: Alert(spec: try AlertSpec.Builder().title("next").build().get()), presenters: [])])
        #expect(store.lastWriteFailure == nil, "\(String(describing: store.lastWriteFailure))")
    }

    /// The database file or its WAL removed, or replaced, under a running
    /// store: SQLite would go on writing to files no start reads, and
    /// every alert acknowledged after would be lost at the next one. The
    /// store refuses writes instead, and says why.
    @Test func filesRemovedOrReplacedUnderTheStoreRefuseWrites() async throws {
        func alert(_ title: String) throws -> [AlertSubmission] {
            [AlertSubmission(alert: Alert(spec: try AlertSpec.Builder().title(title).build().get()), presenters: [])]
        }
        for (removed, how) in [("alertd.db-wal", "removed"), ("alertd.db", "replaced"), ("alertd.db-wal", "emptied"), ("alertd.db", "emptied")] {
            let dir = TemporaryDirectory()
            let path = dir.path + "/alertd.db"
            let store = try SQLiteAlertStore(path: path)
            defer { store.close() }
            _ = try await store.submit(try alert("before"))
            let original = dir.path + "/" + removed
            switch how {
            case "replaced":
                // A restore put over it: another file at the same name.
                try FileManager.default.copyItem(atPath: original, toPath: original + ".restored")
                #expect(rename(original + ".restored", original) == 0)
            case "emptied":
                // `: > alertd.db-wal`: the same file, cut to nothing.
                #expect(truncate(original, 0) == 0)
            default:
                try FileManager.default.removeItem(atPath: original)
                try? FileManager.default.removeItem(atPath: path + "-shm")
            }
            let after = try alert("after")
            do {
                _ = try await store.submit(after)
                Issue.record("an alert was acknowledged with \(removed) \(how) under the store")
            } catch {
                #expect(error.code == .corrupt && error.message.contains(removed), "\(error)")
            }
            #expect(store.lastWriteFailure?.code == .corrupt, "\(String(describing: store.lastWriteFailure))")
        }
    }

    /// A backup restored over a running store, WAL and all, survives that
    /// store's stop, as its refusal tells the operator to restart on it:
    /// the last connection to close deletes the WAL by name, but SQLite
    /// sees its files renamed over and neither checkpoints into them nor
    /// deletes them, and the stop's own checkpoint must not either.
    @Test func aRestoreUnderARunningStoreSurvivesItsStop() async throws {
        func alert(_ title: String) throws -> [AlertSubmission] {
            [AlertSubmission(alert: Alert(spec: try AlertSpec.Builder().title(title).build().get()), presenters: [])]
        }
        let dir = TemporaryDirectory(), backup = TemporaryDirectory()
        let path = dir.path + "/alertd.db"
        weak var gone: SQLiteAlertStore?
        do {
            let running = try SQLiteAlertStore(path: path)
            gone = running
            _ = try await running.submit(try alert("running"))
            // A hot copy: three alerts in its WAL only.
            let source = try SQLiteAlertStore(path: backup.path + "/alertd.db")
            for i in 0..<3 { _ = try await source.submit(try alert("restored \(i)")) }
            for name in ["alertd.db", "alertd.db-wal"] {
                try FileManager.default.copyItem(atPath: backup.path + "/" + name, toPath: dir.path + "/" + name + ".new")
            }
            source.close()
            for name in ["alertd.db", "alertd.db-wal"] { #expect(rename(dir.path + "/" + name + ".new", dir.path + "/" + name) == 0) }
            try? FileManager.default.removeItem(atPath: path + "-shm")
            let refused = try alert("refused")
            await #expect(throws: StoreError.self) { _ = try await running.submit(refused) }
            running.close()
        }
        // Its connections close once its writer's thread has let it go.
        #expect(await eventually(.seconds(5)) { gone == nil })
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the restored WAL was deleted")
        let restored = try SQLiteAlertStore(path: path)
        defer { restored.close() }
        let titles = try await restored.alerts(matching: AlertQuery()).alerts.map(\.spec.title).sorted()
        #expect(titles == ["restored 0", "restored 1", "restored 2"], "\(titles)")
    }

    /// Sticky by itself: a success after the damage does not clear it, where it clears a full disk.
    @Test func damageIsNotClearedByALaterWrite() {
        let changes = Mutex<[String?]>([])
        let failure = WriteFailure { e in changes.withLock { $0.append(e?.code.rawValue) } }
        failure.record(StoreError(code: .io, message: "full"))
        failure.record(nil)
        #expect(failure.error == nil)
        failure.record(StoreError(code: .corrupt, message: "damaged"))
        failure.record(nil)
        failure.record(StoreError(code: .io, message: "full"))
        #expect(failure.error?.code == .corrupt && failure.isDamage)
        #expect(changes.withLock { $0 } == ["store_io", nil, "store_corrupt"])
    }
}
