import AlertdSQLite
import AlertdStore

/// The file's size after pruning. SQLite keeps freed pages inside the file
/// for reuse; in `auto_vacuum=INCREMENTAL` mode they can be given back. A
/// store that held 100,000 closed alerts kept 74 MB after they were pruned.
extension SQLiteAlertStore {
    /// Free pages left in the file in any case (16 MB at 4 KB pages): a
    /// store that empties and fills again reuses them rather than shrinking
    /// and growing the file each time.
    static let keptFreePages: Int64 = 4_096

    /// Pages given back at once. Each page moved rewrites its parent's
    /// pointer: 1,024 pages took 9 ms, 2,048 took 23 ms and a further 11 ms
    /// to commit, all of it time intake waits for the writer.
    static let pagesGivenBackAtOnce: Int64 = 1_024

    public func shrink() async throws(StoreError) -> Bool {
        try await writer.write(durable: false) { conn throws(SQLiteError) in try Self.giveBackFreePages(conn) }
    }

    /// Gives free pages back once they are more than a quarter of the file
    /// and more than `keptFreePages`, down to an eighth; true when more is
    /// left to give. The file shrinks when the checkpointer next copies the
    /// WAL in.
    static func giveBackFreePages(_ conn: SQLiteConnection) throws(SQLiteError) -> Bool {
        guard let free = try conn.scalar("PRAGMA freelist_count"), let pages = try conn.scalar("PRAGMA page_count"),
              free > keptFreePages, free * 4 > pages else { return false }
        let surplus = free - max(pages / 8, keptFreePages)
        try conn.execute("PRAGMA incremental_vacuum(\(min(surplus, pagesGivenBackAtOnce)))")
        return surplus > pagesGivenBackAtOnce
    }

    /// Stores larger than this (256 MB) written before `auto_vacuum=INCREMENTAL`
    /// are not converted at start: `VACUUM` takes about 0.6 s per 100 MB,
    /// before READY.
    static let largestConverted: Int64 = 256 << 20

    /// Converts a store written before it had `auto_vacuum=INCREMENTAL`
    /// (set on every new one), once, by rewriting the file with `VACUUM`.
    /// Nil when the file can shrink; else why not, for the log. A store too
    /// large, or a `VACUUM` that fails (it needs as much free disk again as
    /// the file holds), is left as it was: it works, but keeps its size.
    static func convertToIncrementalVacuum(_ connection: SQLiteConnection, largest: Int64 = largestConverted) -> String? {
        do throws(SQLiteError) {
            return try connection.withLock { conn throws(SQLiteError) -> String? in
                guard try conn.scalar("PRAGMA auto_vacuum") == 0 else { return nil }
                let size = (try conn.scalar("PRAGMA page_count") ?? 0) * (try conn.scalar("PRAGMA page_size") ?? 4096)
                guard size <= largest else {
                    return "it was made before alertd gave space back, and at \(size >> 20) MB it is too large to convert at start"
                }
                try conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
                try conn.execute("VACUUM")
                return nil
            }
        } catch {
            return "converting it failed: \(error.message)"
        }
    }

    /// How an operator converts a store that cannot shrink, with alertd stopped.
    public static func conversionCommand(path: String) -> String {
        "sqlite3 \(path) 'PRAGMA auto_vacuum=INCREMENTAL; VACUUM'"
    }
}
