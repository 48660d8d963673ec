import AlertdPOSIX
import AlertdSQLite

/// The database file and its WAL as the store opened them. One removed, or
/// another put in its place, while alertd runs (a restore over a running
/// daemon, a cleanup of the state directory) leaves SQLite writing to files
/// no start will read: every alert acknowledged after would be lost at the
/// next one.
struct StoreFileWatch: Sendable {
    let path: String
    private let database: FileStatus.Identity?
    private let wal: FileStatus.Identity?

    /// The files at `path` and `path-wal` now; one not there is not watched.
    init(path: String) {
        self.path = path
        database = try? FileStatus.of(path).get().identity
        wal = try? FileStatus.of(path + "-wal").get().identity
    }

    /// Why the store's files are no longer the ones it writes, or nil.
    func change() -> SQLiteError? {
        for case let (name, opened?) in [(path, database), (path + "-wal", wal)] {
            let now: FileStatus.Identity?
            switch FileStatus.of(name) {
            case .success(let status): now = status.identity
            case .failure(.noSuchFile): now = nil
            // Not knowing is no proof of a change (a directory made unreadable meanwhile).
            case .failure: continue
            }
            guard now != opened else { continue }
            let what = now == nil ? "was removed" : "was replaced by another file"
            return .damaged("\(name) \(what) while alertd ran, so nothing written now would be read at the next start; "
                + "restart alertd on the files to keep (a restored backup, or none for an empty store)", context: "checking the store's files")
        }
        return nil
    }
}
