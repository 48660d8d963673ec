import Foundation
import Testing
@testable import AlertModel
@testable import AlertdSQLite
@testable import AlertdHTTP
@testable import AlertdHTTPServer
@testable import AlertdLogging
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdDaemon
@testable import AlertdClient

@Suite struct SQLiteAlertStoreTests {
    let dir: TemporaryDirectory
    let store: SQLiteAlertStore

    init() throws {
        dir = TemporaryDirectory()
        store = try SQLiteAlertStore(path: dir.path + "/alertd.db")
    }

    func spec(_ title: String = "Disk full", dedup: String? = nil, labels: [String: String] = [:]) throws -> AlertSpec {
        var b = AlertSpec.Builder().title(title).labels(labels)
        if let dedup { b = b.dedupKey(dedup) }
        return try b.build().get()
    }

    @Test func boundTextKeepsEveryByteAndAnEmptyStringIsNotNull() throws {
        let conn = try SQLiteConnection(path: dir.path + "/bind.db")
        let rows = try conn.withLock { c throws(SQLiteError) in
            try c.execute("CREATE TABLE t(a, b, c)")
            let insert = try c.statement("INSERT INTO t VALUES (?, ?, ?)")
            try insert.run([.text(""), .text("a\u{0}b"), .text("caf\u{E9} \u{1F4A5}")])
            // Fewer values than parameters: the rest are NULL, not the last run's.
            try insert.run([.text("x")])
            return try c.statement("SELECT typeof(a), length(CAST(b AS BLOB)), b, c, typeof(b) FROM t ORDER BY rowid")
                .query { [$0.text(0), String($0.int(1)), $0.text(2), $0.optionalText(3) ?? "nil", $0.text(4)] }
        }
        #expect(rows == [["text", "3", "a\u{0}b", "caf\u{E9} \u{1F4A5}", "text"], ["text", "0", "", "nil", "null"]])
    }

    /// What `InhibitionSources` keeps is stale after a rollback: the
    /// connection counts them, whether asked for or after a failed `COMMIT`.
    @Test func aConnectionCountsItsRollbacks() throws {
        let conn = try SQLiteConnection(path: dir.path + "/rollbacks.db")
        func run(_ sql: String) -> Bool {
            conn.withLock { conn in (try? conn.execute(sql)) != nil }
        }
        #expect(run("CREATE TABLE t (v INTEGER CHECK (v > 0))"))
        #expect(conn.rollbacks == 0)
        #expect(run("BEGIN; INSERT INTO t VALUES (1); COMMIT"))
        #expect(conn.rollbacks == 0)
        #expect(run("BEGIN; INSERT INTO t VALUES (2); ROLLBACK"))
        #expect(conn.rollbacks == 1)
        // A statement that fails alone undoes only itself, not the transaction.
        #expect(run("BEGIN"))
        #expect(!run("INSERT INTO t VALUES (0)"))
        #expect(conn.rollbacks == 1)
        #expect(run("ROLLBACK"))
        #expect(conn.rollbacks == 2)
    }

    /// The writer keeps the silences filed between screenings
    /// (`SilenceScreeningCache`): what it gives must be what reading them
    /// again gives, after a change, a rollback, a start and an end.
    @Test func keptSilencesFollowChangesRollbacksStartsAndEnds() throws {
        _ = store
        let conn = try SQLiteConnection(path: dir.path + "/alertd.db")
        let cache = SilenceScreeningCache()
        let now = Date()
        func silence(_ matcher: String, from start: Date, for seconds: TimeInterval = 60) throws -> Silence {
            Silence(matchers: [try LabelMatcher(parsing: matcher)], startsAt: start, endsAt: start.addingTimeInterval(seconds),
                    createdBy: "alice", comment: "maintenance")
        }
        /// The ids of the silences holding `labels` at `at`, in a transaction of its own or in the open one.
        func holding(_ labels: [String: String], at: Date, inOpen: Bool = false) throws -> Set<String> {
            try conn.withLock { c throws(SQLiteError) in
                if !inOpen { try c.execute("BEGIN") }
                defer { if !inOpen { try? c.execute("COMMIT") } }
                return try SQLiteStoreTransaction.run(in: c, silences: cache) { tx throws(SQLiteError) in
                    Set(try tx.screeningSilences(at: at).silencing(labels).map(\.id.rawValue))
                }
            }
        }
        func save(_ s: Silence, commit: Bool) throws {
            try conn.withLock { c throws(SQLiteError) in
                try c.execute("BEGIN")
                try SQLiteStoreTransaction.run(in: c, silences: cache) { tx throws(SQLiteError) in try tx.save(s) }
            }
            // Screened inside the same transaction, the new silence holds.
            #expect(try holding(["host": "db"], at: s.startsAt.addingTimeInterval(1), inOpen: true).contains(s.id.rawValue))
            try conn.withLock { c throws(SQLiteError) in try c.execute(commit ? "COMMIT" : "ROLLBACK") }
        }
        #expect(try holding(["host": "db"], at: now).isEmpty)
        let plain = try silence(#"host="db""#, from: now.addingTimeInterval(-1))
        try save(plain, commit: true)
        #expect(try holding(["host": "db"], at: now) == [plain.id.rawValue])
        // Rolled back, a silence screened inside its transaction is gone.
        let undone = try silence(#"host=~"d.*""#, from: now.addingTimeInterval(-1))
        try save(undone, commit: false)
        // One that starts later holds from its start, and none after its end.
        // Saved straight after the rollback, it brings the count of changes
        // back to what it was when the one rolled back was screened.
        let later = try silence(#"host=~"db|web""#, from: now.addingTimeInterval(30), for: 60)
        try save(later, commit: true)
        #expect(try holding(["host": "db"], at: now) == [plain.id.rawValue])
        #expect(try holding(["host": "db"], at: now.addingTimeInterval(31)) == [plain.id.rawValue, later.id.rawValue])
        #expect(try holding(["host": "db"], at: now.addingTimeInterval(61)) == [later.id.rawValue])
        #expect(try holding(["host": "db"], at: now.addingTimeInterval(91)).isEmpty)
        // Changed in place (expired early), it stops holding.
        var ended = later
        ended.endsAt = now.addingTimeInterval(40)
        try conn.withLock { c throws(SQLiteError) in
            try c.execute("BEGIN")
            try SQLiteStoreTransaction.run(in: c, silences: cache) { tx throws(SQLiteError) in try tx.save(ended) }
            try c.execute("COMMIT")
        }
        #expect(try holding(["host": "db"], at: now.addingTimeInterval(45)) == [plain.id.rawValue])
    }

    @Test func concurrentSubmissionsShareCommits() async throws {
        let batches = BatchCounter()
        let counted = try SQLiteAlertStore(path: dir.path + "/group.db") { n in batches.add(n) }
        let alerts = try (0..<400).map { Alert(spec: try spec("a\($0)")) }
        let results = try await withThrowingTaskGroup(of: SubmissionResult.self) { group in
            for a in alerts { group.addTask { try await counted.submit([AlertSubmission(alert: a, presenters: ["log"])])[0] } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(results.map(\.id)) == Set(alerts.map(\.id)))
        let (commits, jobs) = batches.totals
        #expect(jobs == 400)
        // Group commit: far fewer transactions than submissions.
        #expect(commits < 400)
        #expect(try await counted.counts().pending == 400)
    }

    /// The store's own checkpointer copies the WAL into the database file
    /// while the store stays open; no commit does (the writer's fallback is
    /// at 16,000 frames, far above what this writes).
    @Test func theCheckpointerMovesTheWALIntoTheFileWhileOpen() async throws {
        let path = dir.path + "/checkpoint.db"
        let checkpointed = try SQLiteAlertStore(path: path, checkpointFrames: 50)
        defer { checkpointed.close() }
        func size(_ file: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0 }
        let before = size(path)
        for batch in 0..<20 {
            let alerts = try (0..<50).map { AlertSubmission(alert: Alert(spec: try spec("c\(batch)-\($0)")), presenters: ["log"]) }
            _ = try await checkpointed.submit(alerts)
        }
        let grew = await eventually(.seconds(5)) { size(path) > before + 100_000 }
        #expect(grew, "alertd.db stayed at \(size(path)) bytes (\(before) at open); the WAL holds \(size(path + "-wal"))")
    }

    /// Under writes that never pause, the WAL still starts over once the
    /// checkpointer has copied it, rather than growing until the writer's
    /// own fallback while the checkpointer runs after nearly every commit.
    @Test func theWALStartsOverUnderSteadyWrites() async throws {
        let path = dir.path + "/steady.db"
        let store = try SQLiteAlertStore(path: path, checkpointFrames: 50)
        defer { store.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for n in 0..<100 {
                        let alert = Alert(spec: try spec("w\(writer)-\(n)"))
                        _ = try await store.submit([AlertSubmission(alert: alert, presenters: ["log"])])
                    }
                }
            }
            try await group.waitForAll()
        }
        // Without the start over, 9–11 MB. With it, about 0.5 MB (the
        // threshold and what the writers add while a pass copies), on two
        // busy cores as on idle ones.
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(wal < 2_000_000, "the WAL reached \(wal) bytes")
    }

    @Test func inFlightDeliveriesAreRecoveredAfterReopening() async throws {
        let path = dir.path + "/crash.db"
        let alert = Alert(spec: try spec())
        do {
            let s = try SQLiteAlertStore(path: path)
            _ = try await s.submit([AlertSubmission(alert: alert, presenters: ["hook"])])
            _ = try await s.claimDueDeliveries(now: Date(), capacity: [.presenter("hook"): 1], orphanLimit: 0)
            s.close()
        }
        let reopened = try SQLiteAlertStore(path: path)
        #expect(try await reopened.counts().inFlight == 1)
        #expect(try await reopened.recoverInFlight(now: Date()) == 1)
        let claimed = try await reopened.claimDueDeliveries(now: Date(), capacity: [.presenter("hook"): 1], orphanLimit: 0)
        #expect(claimed.first?.alert.id == alert.id)
        #expect(claimed.first?.delivery.attempts == 2)
    }

    @Test func silencesAndWhatTheyHoldSurviveReopening() async throws {
        let path = dir.path + "/silences.db"
        let now = Date()
        let silence = Silence(matchers: [try LabelMatcher(parsing: #"job=~"node|db""#)], startsAt: now, endsAt: now.addingTimeInterval(600),
                              createdBy: "alice", comment: "upgrade")
        let alert = Alert(spec: try spec(labels: ["job": "db"]))
        do {
            let s = try SQLiteAlertStore(path: path)
            _ = try await s.saveSilence(silence, replacing: nil, now: now)
            _ = try await s.submit([AlertSubmission(alert: alert, presenters: ["hook"])])
            #expect(try await s.claimDueDeliveries(now: now.addingTimeInterval(1), capacity: [.presenter("hook"): 1], orphanLimit: 0).isEmpty)
            s.close()
        }
        let reopened = try SQLiteAlertStore(path: path)
        let read = try #require(try await reopened.silence(id: silence.id))
        #expect(read.matchers == silence.matchers)
        #expect(read.createdBy == "alice")
        #expect(try await reopened.counts().silencedDeliveries == 1)
        #expect(try await reopened.claimDueDeliveries(now: now.addingTimeInterval(60), capacity: [.presenter("hook"): 1], orphanLimit: 0).isEmpty)
        #expect(try await reopened.claimDueDeliveries(now: silence.endsAt, capacity: [.presenter("hook"): 1], orphanLimit: 0).count == 1)
    }

    @Test func aStoreFromBeforeRecipientsIsMigratedAndKeepsNewRecipientsAcrossReopening() async throws {
        let path = dir.path + "/v9.db"
        // A store as alertd left it before decisions had recipients: migrations 1 to 9, one alert decided.
        let old = Alert(spec: try spec("before"))
        do {
            let s = try SQLiteAlertStore(path: path)
            #expect(s.schemaUpgrade == SchemaUpgrade(from: 0, to: StoreSchema.migrations.count))
            _ = try await s.submit([AlertSubmission(alert: old, presenters: [])])
            _ = try await s.decide(old.id, AlertDecision(outcome: .confirmed, actor: "link"))
            s.close()
        }
        try SchemaFixtures.turnBackToSchema9(path)
        let new = Alert(spec: try spec("after"))
        do {
            let s = try SQLiteAlertStore(path: path)
            #expect(s.schemaUpgrade == SchemaUpgrade(from: 9, to: StoreSchema.migrations.count))
            #expect(try await s.record(id: old.id)?.alert.decision?.actor == "link")
            #expect(try await s.record(id: old.id)?.alert.decision?.recipient == nil)
            _ = try await s.submit([AlertSubmission(alert: new, presenters: [])])
            _ = try await s.decide(new.id, AlertDecision(outcome: .cancelled, actor: "link", recipient: "alice@example.com"))
            s.close()
        }
        let reopened = try SQLiteAlertStore(path: path)
        #expect(reopened.schemaUpgrade == nil)
        #expect(try await reopened.record(id: new.id)?.alert.decision?.recipient == "alice@example.com")
        #expect(try await reopened.record(id: old.id)?.alert.decision?.recipient == nil)
    }

    @Test func whenSomethingIsDueIsFoundBySeeksAlongTheDueIndex() async throws {
        let path = dir.path + "/due.db"
        let store = try SQLiteAlertStore(path: path)
        let now = Date()
        // Three presenters; the soonest due after `now` is b's second.
        let due: [(String, TimeInterval)] = [("a", -5), ("a", 30), ("b", -1), ("b", 10), ("c", 60)]
        for (i, (presenter, offset)) in due.enumerated() {
            let alert = Alert(spec: try AlertSpec.Builder().title("t\(i)").build().get())
            _ = try await store.submit([AlertSubmission(alert: alert, presenters: [presenter])])
            let conn = try SQLiteConnection(path: path)
            try conn.withLock { c throws(SQLiteError) in
                try c.statement("UPDATE deliveries SET next_attempt_at = ? WHERE alert_id = ?")
                    .run([.integer(StoreCoding.millis(now.addingTimeInterval(offset))), .text(alert.id.rawValue)])
            }
        }
        let next = try #require(try await store.nextDueTime(after: now))
        #expect(abs(next.timeIntervalSince(now) - 10) < 0.01)
        #expect(try await store.nextDueTime(after: now.addingTimeInterval(60)) == nil)
        let soonest = try #require(try await store.nextDueTime(after: nil))
        #expect(abs(soonest.timeIntervalSince(now) + 5) < 0.01)
        // Orphans (a presenter no longer configured) are found among the known ones, due or not.
        let orphans = try await store.claimDueDeliveries(now: now, capacity: [.presenter("a"): 0, .presenter("c"): 0], orphanLimit: 5)
        #expect(orphans.map(\.delivery.presenter) == ["b", "b"])
        let conn = try SQLiteConnection(path: path)
        let plan = try conn.withLock { c throws(SQLiteError) in
            try c.statement("EXPLAIN QUERY PLAN " + SQLiteAlertStore.nextDue).query([.integer(0)]) { $0.text(3) }
        }
        // Seeks along deliveries_due, never a walk of every pending delivery.
        #expect(plan.contains { $0.contains("deliveries_due (presenter>?)") }, "plan: \(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN deliveries") || $0.hasPrefix("SCAN d ") }, "plan: \(plan)")
    }

    /// A prune reads a batch of the oldest events by `seq` and deletes those
    /// before the cutoff: a bounded read whatever the log's size (with the
    /// cutoff inside the walk, it read every event when none was old
    /// enough). The newest event stays whatever its age.
    @Test func pruningEventsReadsABatchOfTheOldestWhateverTheLogsSize() async throws {
        let path = dir.path + "/prune.db"
        do { _ = try SQLiteAlertStore(path: path) }
        let conn = try SQLiteConnection(path: path)
        let (written, left) = try conn.withLock { c throws(SQLiteError) -> ([Int64], [Int64]) in
            let insert = try c.statement("INSERT INTO events (type, alert_id, at) VALUES ('alert.created', 'a', ?)")
            // Three old, two recent, two old again (a clock set back), and an old newest.
            for at in [100, 100, 100, 5_000, 5_000, 100, 100, 100] as [Int64] { try insert.run([.integer(at)]) }
            let seqs = try c.statement("SELECT seq FROM events ORDER BY seq").query { $0.int(0) }
            try c.statement(SQLiteAlertStore.pruneEvents).run([.integer(1_000), .integer(5)])
            return (seqs, try c.statement("SELECT seq FROM events ORDER BY seq").query { $0.int(0) })
        }
        try #require(written.count == 8)
        // The five oldest were read: the three old ones went, the two recent
        // stay; the two behind them wait for the next batch; the newest stays.
        #expect(left == Array(written[3...]))
        let indexes = try conn.withLock { c throws(SQLiteError) in
            try c.statement("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'events'").query { $0.text(0) }
        }
        #expect(indexes.isEmpty, "events keeps only its rowid b-tree: \(indexes)")
    }

    /// Space that pruning frees goes back to the file system, a slice per
    /// round: the file once kept its largest size for good (74 MB after
    /// 100,000 alerts came and went).
    @Test func prunedSpaceGoesBackToTheFileSystem() async throws {
        let path = dir.path + "/shrink.db"
        func size() -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        do { try SQLiteAlertStore(path: path).close() }
        // 12,000 alerts closed long ago, 4 KB each: about 50 MB.
        try SQLiteConnection(path: path).withLock { c throws(SQLiteError) in
            try c.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
                INSERT INTO alerts (id, spec, state, severity, created_at, updated_at)
                SELECT printf('old-%05d', i), hex(randomblob(2000)), 'resolved', 'info', 1000, 1000 FROM n;
                PRAGMA wal_checkpoint(TRUNCATE);
                """)
        }
        let before = size()
        try #require(before > 45_000_000, "the filled store has \(before) bytes")
        let store = try SQLiteAlertStore(path: path)
        let maintenance = MaintenanceService(store: store, retention: .seconds(60), tick: .milliseconds(100))
        let run = Task { await maintenance.run() }
        let reader = try SQLiteConnection(path: path, readOnly: true)
        func pages() throws -> (alerts: Int64, free: Int64, all: Int64) {
            try reader.withLock { c throws(SQLiteError) in
                (try c.scalar("SELECT count(*) FROM alerts") ?? -1, try c.scalar("PRAGMA freelist_count") ?? 0, try c.scalar("PRAGMA page_count") ?? 0)
            }
        }
        let givenBack = try await eventually(.seconds(30), every: .milliseconds(100)) {
            let (alerts, free, all) = try pages()
            return alerts == 0 && (free <= SQLiteAlertStore.keptFreePages || free * 8 <= all)
        }
        let left = try pages()
        await maintenance.shutdownGracefully()
        await run.value
        store.close()
        // What is left: the free pages kept for reuse, and the empty tables.
        #expect(givenBack, "alerts, free pages and all pages: \(left)")
        #expect(size() < 24_000_000, "the store went from \(before) to \(size()) bytes")
    }

    /// A store from before `auto_vacuum=INCREMENTAL` is converted once, its
    /// alerts kept; a new one has the mode from its first page.
    @Test func aStoreThatCouldNotShrinkIsConvertedOnce() async throws {
        let path = dir.path + "/old.db"
        let alert = Alert(spec: try spec("kept"))
        func mode() throws -> Int64? {
            try SQLiteConnection(path: path, readOnly: true).withLock { c throws(SQLiteError) in try c.scalar("PRAGMA auto_vacuum") }
        }
        do {
            let s = try SQLiteAlertStore(path: path)
            _ = try await s.submit([AlertSubmission(alert: alert, presenters: [])])
            #expect(s.cannotShrink == nil)
            s.close()
        }
        #expect(try mode() == 2)
        try SQLiteConnection(path: path).withLock { c throws(SQLiteError) in try c.execute("PRAGMA auto_vacuum=NONE; VACUUM") }
        try #require(try mode() == 0)
        // Too large to convert before READY: left as it is, and why is told.
        let why = SQLiteAlertStore.convertToIncrementalVacuum(try SQLiteConnection(path: path), largest: 4_096)
        #expect(why?.contains("too large to convert") == true, "\(why ?? "converted")")
        #expect(try mode() == 0)
        let reopened = try SQLiteAlertStore(path: path)
        defer { reopened.close() }
        #expect(reopened.cannotShrink == nil)
        #expect(try mode() == 2)
        #expect(try await reopened.record(id: alert.id)?.alert.spec.title == "kept")
    }

    @Test func aStoreFromANewerAlertdIsRefused() async throws {
        let path = dir.path + "/future.db"
        do { _ = try SQLiteAlertStore(path: path) }
        let conn = try SQLiteConnection(path: path)
        try conn.withLock { c throws(SQLiteError) in try c.execute("PRAGMA user_version = 99") }
        #expect {
            _ = try SQLiteAlertStore(path: path)
        } throws: { ($0 as? StoreError)?.code == .incompatible }
    }

    @Test func anUnwritableLocationGivesAnActionableError() {
        #expect {
            _ = try SQLiteAlertStore(path: "/nonexistent-dir/alertd.db")
        } throws: { error in
            guard let e = error as? StoreError else { return false }
            return e.code == .cannotOpen && e.message.contains("state directory")
        }
    }
}

final class BatchCounter: Sendable {
    private let state = Mutex<(commits: Int, jobs: Int)>((0, 0))
    func add(_ n: Int) { state.withLock { $0.commits += 1; $0.jobs += n } }
    var totals: (Int, Int) { state.withLock { ($0.commits, $0.jobs) } }
}

import Synchronization

@Suite struct CanonicalJSONTests {
    @Test func canonicalJSONMatchesTheEncoderAndDecodesBack() throws {
        let specs = [
            try AlertSpec.Builder().title("x").build().get(),
            try AlertSpec.Builder().title("Disk \"full\" \\ on db1").message("line1\nline2\ttab\r\nend")
                .severity(.critical).labels(["b": "2", "a": "1", "quote": "\"q\""])
                .confirm("Go", handler: "https://ops.example/go?x=1&y=2").cancel("Stop", handler: "http://ops.example/stop", method: .put)
                .dedupKey("k/1").expires(after: .minutes(30)).build().get(),
            try AlertSpec.Builder().title("ünïcödé ✓ 🚨").message("").build().get(),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for spec in specs {
            let canonical = spec.canonicalJSON
            #expect(try JSONDecoder().decode(AlertSpec.self, from: Data(canonical.utf8)) == spec)
            #expect(try AlertSpec.fromStorage(canonical) == spec)
            // Same document as Foundation's encoder writes, key for key.
            let viaEncoder = try JSONSerialization.jsonObject(with: try encoder.encode(spec)) as? NSDictionary
            let viaCanonical = try JSONSerialization.jsonObject(with: Data(canonical.utf8)) as? NSDictionary
            #expect(viaEncoder == viaCanonical)
        }
        // A stored document is read whatever its whitespace and key order, and past keys it does not know.
        let spaced = #"{ "title" : "t", "labels" : {"b":"2","a":"1"}, "later_field": [1, {"x": null}], "severity": "error", "#
            + #""confirm": {"url": "https://h/x", "label": "Go", "method": "PUT"}, "expires_after": 60, "message": null }"#
        let read = try AlertSpec.fromStorage(spaced)
        #expect(read == (try AlertSpec.Builder().title("t").severity(.error).labels(["a": "1", "b": "2"])
            .confirm("Go", handler: "https://h/x", method: .put).expires(after: .minutes(1)).build().get()))
        for damaged in ["", "[]", #"{"title": "t"}"#, #"{"title": "t", "severity": "error"} x"#, #"{"title": "t", "title": "u", "severity": "info"}"#] {
            #expect(throws: (any Error).self, "\(damaged)") { try AlertSpec.fromStorage(damaged) }
        }
    }
}
