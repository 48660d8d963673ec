import CSQLite
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One SQLite database connection with a cache of prepared statements.
///
/// `@unchecked Sendable` is safe because every use of the C handle and the
/// statement cache happens inside `withLock`, which serialises callers: the
/// connection is opened with `SQLITE_OPEN_NOMUTEX`, so this lock is the only
/// thing standing between threads, and it is always taken.
package final class SQLiteConnection: @unchecked Sendable {
    package let handle: OpaquePointer
    package let path: String
    private let lock = Mutex<Void>(())
    private var statements: [StatementKey: SQLiteStatement] = [:]
    /// What ``onCommit(checkpointingAt:_:)`` gave, kept alive for SQLite's callback.
    private var walHook: WALHook?
    /// Counted by SQLite's rollback hook (see ``rollbacks``).
    private let rolledBack = RollbackCount()
    /// Read by SQLite's busy handler (see ``limitLockWaits(to:)``).
    private let lockWait = LockWait()

    /// Opens (creating if asked) the database at `path`.
    /// Calls `sqlite3_open_v2`.
    package init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        _ = sqliteConfigured
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message, context: "open \(path)")
        }
        sqlite3_extended_result_codes(db, 1)
        // A writer holds the lock only for a batch; readers wait rather than
        // fail, as `sqlite3_busy_timeout` would have them, but only until
        // the store closes.
        sqlite3_busy_handler(db, { context, tries in
            Unmanaged<LockWait>.fromOpaque(context!).takeUnretainedValue().again(after: tries) ? 1 : 0
        }, Unmanaged.passUnretained(lockWait).toOpaque())
        self.handle = db
        self.path = path
        sqlite3_rollback_hook(db, { context in
            Unmanaged<RollbackCount>.fromOpaque(context!).takeUnretainedValue().value += 1
        }, Unmanaged.passUnretained(rolledBack).toOpaque())
    }

    /// How long a statement waits for another connection's lock from now
    /// on, the one waiting now included: 0 gives up at once. A store
    /// closing with writes queued behind a lock another program holds
    /// waited 5 s for each in turn (45 s of a held `BEGIN IMMEDIATE` kept a
    /// stop with a 1 s grace 43 s).
    package func limitLockWaits(to milliseconds: Int32) {
        lockWait.limitMilliseconds.store(max(0, milliseconds), ordering: .relaxed)
    }

    /// How many transactions have rolled back on this connection
    /// (`sqlite3_rollback_hook`), whether by `ROLLBACK` or by SQLite after a
    /// failed `COMMIT`. What a caller keeps in memory of the rows it wrote
    /// is stale once this moves. Only read inside `withLock`.
    package var rollbacks: Int { rolledBack.value }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs `body` with exclusive use of the connection.
    package func withLock<T, E: Error>(_ body: (SQLiteConnection) throws(E) -> T) throws(E) -> T {
        try lock.withLock { _ throws(E) -> T in try body(self) }
    }

    /// Executes one or more statements with no parameters (`sqlite3_exec`).
    /// Only call inside `withLock`.
    package func execute(_ sql: String) throws(SQLiteError) {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let message = err.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(err)
            throw SQLiteError(code: rc, extendedCode: sqlite3_extended_errcode(handle), message: message, context: sql)
        }
    }

    /// A cached prepared statement for `sql`. Only call inside `withLock`.
    package func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        let key = StatementKey(sql: sql)
        if let s = statements[key] { return s }
        let s = try SQLiteStatement(connection: self, sql: sql)
        statements[key] = s
        return s
    }

    /// A cached statement's text, hashed by its length and ends only: every
    /// store call looks its statements up, and hashing whole SQL texts each
    /// time was a measurable share of a write. The ends go in as four words,
    /// not as bytes: hashing 64 bytes cost 600 instructions a look-up, and
    /// a write looks up several. Equality still compares all.
    private struct StatementKey: Hashable {
        let sql: String

        func hash(into hasher: inout Hasher) {
            var sql = sql
            sql.withUTF8 { utf8 in
                hasher.combine(utf8.count)
                let raw = UnsafeRawBufferPointer(utf8)
                guard raw.count >= 16 else { return hasher.combine(bytes: raw) }
                for offset in [0, 8, raw.count - 16, raw.count - 8] { hasher.combine(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
            }
        }
    }

    /// Reads a single integer, e.g. `PRAGMA user_version`.
    package func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> Int64? {
        try statement(sql).query(values) { row in row.int(0) }.first
    }

    /// Rows changed by the last statement (`sqlite3_changes`).
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// Rows changed since the connection opened (`sqlite3_total_changes64`).
    package var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// After each commit that wrote the WAL, `body` hears how many frames
    /// the WAL now holds (`sqlite3_wal_hook`), on the committing thread, and
    /// answers whether this connection should checkpoint (`PASSIVE`) there
    /// and then. It takes the place of `wal_autocheckpoint`: this connection
    /// also checkpoints by itself once the WAL holds `frames`, for when
    /// whatever `body` tells has fallen behind. Call before the connection
    /// is shared.
    package func onCommit(checkpointingAt frames: Int, _ body: @escaping @Sendable (Int) -> Bool) {
        let hook = WALHook(checkpointAt: Int32(clamping: frames), body: body)
        walHook = hook
        sqlite3_wal_hook(handle, { context, db, name, frames in
            let hook = Unmanaged<WALHook>.fromOpaque(context!).takeUnretainedValue()
            if hook.body(Int(frames)) || frames >= hook.checkpointAt {
                sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// A wait for another connection's lock: 1 ms more at each try, up to
    /// 10 ms, for at most `limitMilliseconds` in all (5 s, as
    /// `sqlite3_busy_timeout` had it, until ``SQLiteConnection/limitLockWaits(to:)``).
    private final class LockWait: Sendable {
        let limitMilliseconds = Atomic<Int32>(5_000)

        /// Whether to try again after `tries` tries, having slept if so.
        func again(after tries: Int32) -> Bool {
            let step = min(tries + 1, 10)
            let waited = tries < 10 ? tries * (tries + 1) / 2 : 45 + (tries - 9) * 10
            guard waited + step <= limitMilliseconds.load(ordering: .relaxed) else { return false }
            usleep(UInt32(step) * 1_000)
            return true
        }
    }

    /// `@unchecked Sendable`: SQLite calls the hook on the thread that holds
    /// the connection's lock, and ``rollbacks`` is read under it.
    private final class RollbackCount: @unchecked Sendable {
        var value = 0
    }

    private final class WALHook: Sendable {
        let checkpointAt: Int32
        let body: @Sendable (Int) -> Bool

        init(checkpointAt: Int32, body: @escaping @Sendable (Int) -> Bool) {
            self.checkpointAt = checkpointAt
            self.body = body
        }
    }

    /// Copies every frame of the WAL into the database file, syncs that
    /// file and empties the WAL (`sqlite3_wal_checkpoint_v2`, `TRUNCATE`),
    /// waiting for readers as any lock; throws unless all of it was done.
    package func checkpointAndEmptyWAL() throws(SQLiteError) {
        var frames: Int32 = -1, copied: Int32 = -1
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, &frames, &copied)
        guard rc == SQLITE_OK else { throw error(rc, context: "PRAGMA wal_checkpoint(TRUNCATE)") }
        guard frames == copied else {
            throw SQLiteError(code: SQLITE_BUSY, message: "the checkpoint copied \(copied) of the WAL's \(frames) frames",
                              context: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    package func error(_ rc: Int32, context: String) -> SQLiteError {
        SQLiteError(code: rc, extendedCode: sqlite3_extended_errcode(handle),
                    message: String(cString: sqlite3_errmsg(handle)), context: context)
    }
}

/// Process-wide SQLite settings, made once before the first connection opens
/// (a global's initialiser runs once, on first use). Nothing alertd reads
/// needs SQLite's allocation statistics, and keeping them cost a lock per
/// allocation on every write. No page cache is set aside up front (see the
/// shim): it kept about 90 KB per connection resident in an idle daemon.
private let sqliteConfigured: Void = {
    _ = alertd_sqlite_disable_memstatus()
    _ = alertd_sqlite_no_initial_page_cache()
}()
