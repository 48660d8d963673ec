import FoundationEssentials
import AlertdLogging
import AlertdPOSIX
import AlertdStore

extension AlertDaemon {
    /// The loosest the state directory may be: its owner everything, its
    /// group may look (to read `alerts.log`), others nothing. The database,
    /// the action-link key and the alert log are in it.
    static let stateDirectoryPermissions: UInt32 = 0o750

    /// The lock file in the state directory; it holds the running alertd's pid.
    static let lockFileName = "alertd.lock"

    /// Readies the state directory for a start, before the store is opened:
    /// creates it (0750) or tightens a looser one, takes its lock, so a
    /// second alertd cannot touch a running one's store, and proves it
    /// writable. The lock is held until the daemon closes.
    static func claimStateDirectory(_ path: String, log: Logger) throws(DaemonError) -> LockFile {
        try createOrTighten(path, log: log)
        let lock = try lock(path)
        try probeWritable(path)
        return lock
    }

    private static func createOrTighten(_ path: String, log: Logger) throws(DaemonError) {
        switch FileStatus.of(path) {
        case .failure(let error) where error == .noSuchFile:
            if case .failure(let error) = Directory.create(path, mode: UInt32(stateDirectoryPermissions)) {
                throw DaemonError(code: .stateUnwritable,
                                  message: "Cannot create the state directory \(path): \(error). Create it or pass --state-dir.")
            }
        case .failure(let error) where error == .notADirectory:
            // It cannot be created there: 73, as for a read-only file system.
            throw DaemonError(code: .stateUnwritable,
                              message: "Cannot create the state directory \(path): a part of its path is a file, not a directory. Point state_dir (or --state-dir) elsewhere.")
        case .failure(let error):
            // A parent alertd's user may not search: 73, as the man page says of permissions.
            throw DaemonError(code: error == .permissionDenied ? .stateUnwritable : .stateDirectory,
                              message: "Cannot look at the state directory \(path): \(error). Check the path and its parents' permissions.")
        case .success(let status):
            guard status.kind == .directory else {
                throw DaemonError(code: .stateUnwritable, message: "The state directory \(path) is not a directory; point state_dir (or --state-dir) at a directory.")
            }
            let excess = status.permissions & 0o777 & ~stateDirectoryPermissions
            guard excess != 0 else { return }
            let tightened = status.permissions & ~excess
            let modes: Logger.Metadata = ["path": path, "from": status.octal, "to": FileMode.octal(tightened)]
            // Checked before tightening, so a refused start leaves the mode
            // as it was and every later start refuses too, until a person looks.
            if status.isWritableByOthers { try refusePlantedEntries(path, mode: status.octal) }
            guard let error = FileMode.change(path, to: tightened) else {
                log.warning("tightened the state directory's permissions", modes)
                return
            }
            // Others writing in it could swap the store or the key: no start.
            guard !status.isWritableByOthers else {
                throw DaemonError(code: .stateDirectory, message: "The state directory \(path) may be written by group or others (mode \(status.octal)), and alertd cannot tighten it: \(error). Run chmod 750 \(path), or give it to the user alertd runs as.")
            }
            log.warning("the state directory is readable by others and alertd cannot tighten it", modes.merging(["error": "\(error)"]) { a, _ in a })
        }
    }

    /// A directory others could write in may hold what they put there: a
    /// symbolic link named `alertd.db` or `alerts.log` would have alertd
    /// write its store or its alerts wherever it points. So before such a
    /// directory is tightened, every entry must be alertd's user's own, and
    /// no symbolic link; otherwise alertd does not start until a person has
    /// looked.
    private static func refusePlantedEntries(_ path: String, mode: String) throws(DaemonError) {
        guard case .success(let names) = Directory.entries(of: path) else { return }
        let planted = names.filter { name in
            guard case .success(let entry) = FileStatus.link(path + "/" + name) else { return false }
            return entry.kind == .symbolicLink || !entry.isOwnedByThisProcess
        }
        guard !planted.isEmpty else { return }
        throw DaemonError(
            code: .stateDirectory,
            message: "The state directory \(path) may be written by others (mode \(mode)), and holds "
                + "\(planted.joined(separator: ", ")), which \(planted.count == 1 ? "is a symbolic link or another user's" : "are symbolic links or other users'"). "
                + "Anyone could have put them there; check them, remove them, and start alertd again.")
    }

    private static func lock(_ directory: String) throws(DaemonError) -> LockFile {
        let path = directory + "/" + lockFileName
        switch LockFile.acquire(path) {
        case .success(let lock):
            return lock
        case .failure(.held(_, let pid)):
            let holder = pid.map { "alertd (pid \($0))" } ?? "alertd"
            throw DaemonError(code: .stateLocked, message: "Another \(holder) is running on the state directory \(directory) (it holds \(path)); stop it first, or give this one its own --state-dir.")
        case .failure(.system(_, let operation, let error)):
            if error == .permissionDenied, let foreign = foreignFile(path, in: directory) { throw foreign }
            throw unwritable(directory, because: "\(operation) \(path) failed: \(error)")
        }
    }

    /// Locks the SQLite store file itself before it is opened. The state
    /// directory's lock keeps a second alertd off the same directory, but
    /// `store.path` may name another's store: two daemons on one file took
    /// each other's deliveries for their own, ended those of presenters
    /// they did not have, and the first to stop emptied the write-ahead log
    /// under the other, which then took the file for damaged.
    static func claimStoreFile(_ path: String) throws(DaemonError) -> LockFile {
        if CurrentProcess.effectiveUserID != 0 {
            for file in [path, path + "-wal", path + "-shm"] {
                if let foreign = foreignFile(file, in: Directory.parent(of: path)) { throw foreign }
            }
        }
        switch LockFile.acquireInPlace(path) {
        case .success(let lock):
            return lock
        case .failure(.held(_, let pid)):
            let holder = pid.map { "process (pid \($0))" } ?? "process"
            throw DaemonError(code: .stateLocked, message: "Another \(holder) holds the store \(path): another alertd runs on it, perhaps with another state directory. Stop it first, or give this one its own store.path.")
        case .failure(.system(_, let operation, let error)):
            throw DaemonError(StoreError(code: .cannotOpen, message: "Opening the store \(path) failed (\(operation): \(error)). Check that the user alertd runs as may read and write it, or change store.path."))
        }
    }

    /// Writes, flushes and removes a small file: a read-only file system or
    /// a full disk fails the start here, naming the directory, rather than
    /// leaving alertd up and refusing every alert.
    private static func probeWritable(_ directory: String) throws(DaemonError) {
        let probe = directory + "/.write-probe"
        // A crash between create and remove leaves one behind; we hold the lock.
        _ = ExclusiveFile.remove(probe)
        if case .failure(let error) = ExclusiveFile.create(probe, contents: Array("alertd write probe\n".utf8), permissions: 0o600) {
            throw unwritable(directory, because: "writing \(probe) failed: \(error)")
        }
        _ = ExclusiveFile.remove(probe)
    }

    /// `path`, when another user owns it: files a start as root left
    /// behind after the directory was handed over. The message said to make
    /// the directory writable, as it already was, or that SQLite was
    /// "unable to open database file".
    private static func foreignFile(_ path: String, in directory: String) -> DaemonError? {
        guard case .success(let status) = FileStatus.link(path), !status.isOwnedByThisProcess else { return nil }
        let me = CurrentProcess.effectiveUserID
        return DaemonError(code: .stateUnwritable, message: "The file \(path) belongs to uid \(status.owner), not to the user alertd runs as (uid \(me)): a start as another user (root?) left it. Give the state directory's files to this user: chown -R \(me) \(directory).")
    }

    private static func unwritable(_ directory: String, because why: String) -> DaemonError {
        DaemonError(code: .stateUnwritable, message: "The state directory \(directory) cannot be written: \(why). alertd keeps its store there; make it writable by the user alertd runs as (is the file system read-only or full?), or pass --state-dir.")
    }
}
