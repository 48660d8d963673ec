import AlertdPOSIX
import AlertdSQLite
import Synchronization

/// The database file and its WAL as the store opened them. One removed, or
/// another put in its place, while alertd runs (a restore over a running
/// daemon, a cleanup of the state directory) leaves SQLite writing to files
/// no start will read: every alert acknowledged after would be lost at the
/// next one. So does one emptied in place: the database file cut to
/// nothing, or the WAL cut shorter than the frames SQLite last committed
/// to it.
package final class StoreFileWatch: Sendable {
    package let path: String
    private let database: FileStatus?
    private let wal: FileStatus?
    private let pageSize: Int64
    /// Frames in the WAL after the last commit (SQLite's WAL hook), 0 once emptied.
    private let walFrames = Atomic<Int>(0)
    /// The database file has had pages (a new one starts empty): it never
    /// has none again.
    private let databaseHadPages: Atomic<Bool>

    /// The files at `path` and `path-wal` now; one not there is not watched.
    package init(path: String, pageSize: Int64) {
        self.path = path
        self.pageSize = pageSize
        database = try? FileStatus.of(path).get()
        wal = try? FileStatus.of(path + "-wal").get()
        databaseHadPages = Atomic((database?.size ?? 0) > 0)
    }

    /// After a commit: the WAL holds `frames`.
    package func walHolds(_ frames: Int) {
        walFrames.store(frames, ordering: .relaxed)
    }

    /// After the store emptied the WAL itself (`wal_checkpoint(TRUNCATE)`).
    package func walEmptied() {
        walFrames.store(0, ordering: .relaxed)
    }

    /// Why the store's files are no longer the ones it writes, or nil.
    package func change() -> SQLiteError? {
        // A WAL holds a 32-byte header and each frame's page with a 24-byte head.
        let frames = Int64(walFrames.load(ordering: .relaxed))
        let walAtLeast = frames > 0 ? 32 + frames * (pageSize + 24) : 0
        let databaseAtLeast: Int64 = databaseHadPages.load(ordering: .relaxed) ? 1 : 0
        for case let (name, opened?, atLeast) in [(path, database, databaseAtLeast), (path + "-wal", wal, walAtLeast)] {
            let now: FileStatus?
            switch FileStatus.of(name) {
            case .success(let status): now = status
            case .failure(.noSuchFile): now = nil
            // Not knowing is no proof of a change (a directory made unreadable meanwhile).
            case .failure: continue
            }
            if name == path, (now?.size ?? 0) > 0 { databaseHadPages.store(true, ordering: .relaxed) }
            guard now?.identity != opened.identity || (now?.size ?? 0) < atLeast else { continue }
            let what = now == nil ? "was removed" : now?.identity != opened.identity ? "was replaced by another file"
                : "was cut short (\(now?.size ?? 0) bytes, where the store had written at least \(atLeast))"
            return .damaged("\(name) \(what) while alertd ran, so nothing written now would be read at the next start; "
                + "restart alertd on the files to keep (a restored backup, or none for an empty store)", context: "checking the store's files")
        }
        return nil
    }
}
