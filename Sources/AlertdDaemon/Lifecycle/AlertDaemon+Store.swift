import FoundationEssentials
import AlertdAPI
import AlertdLogging
import AlertdPOSIX
import AlertdSQLiteStore
import AlertdStore
import AlertModel

extension AlertDaemon {
    /// The store the daemon runs on, and how to close it once every service
    /// has stopped.
    package struct OpenedStore: Sendable {
        package let store: any AlertStore
        package let path: String
        /// Why writes fail for want of disk, permission or I/O; nil while they work.
        package let lastWriteFailure: @Sendable () -> StoreError?
        package let close: @Sendable () -> Void
    }

    /// To run: readies the state directory (created or tightened to 0750,
    /// locked against a second alertd, proven writable), then opens the
    /// database, creating or migrating it. To check: changes nothing on
    /// disk and takes no lock, but finds what would keep the database from
    /// opening (a directory that cannot be created or written, a file this
    /// user cannot write) and stands an empty in-memory store in for it, so
    /// the rest is built as for a start.
    static func openStore(_ config: DaemonConfiguration, mode: Mode, metrics: DaemonMetrics,
                          changes: ChangeSignal, log: Logger) throws(DaemonError) -> OpenedStore {
        let path = config.resolvedStorePath
        switch mode {
        case .run:
            let lock = try claimStateDirectory(config.stateDirectory, log: log)
            do {
                let store = try SQLiteAlertStore(
                    path: path,
                    onCommit: { batch in
                        metrics.committed(batch: batch)
                        changes.notify()
                    },
                    onWriteFailureChange: { failure in
                        if let failure {
                            log.error("the store cannot be written; alerts are refused until a write succeeds", ["error": failure.message])
                        } else {
                            log.notice("the store takes writes again")
                        }
                    })
                return OpenedStore(store: store, path: path, lastWriteFailure: { store.lastWriteFailure }, close: {
                    store.close()
                    lock.release()
                })
            } catch {
                lock.release()
                throw DaemonError(error)
            }
        case .check:
            try checkWritableDirectory(config.stateDirectory, role: "state directory")
            if FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.isReadableFile(atPath: path), FileManager.default.isWritableFile(atPath: path) else {
                    throw DaemonError(code: .store, message: "The store \(path) cannot be read and written by this user; check as the user alertd runs as, or fix the file's owner.")
                }
                do { try SQLiteAlertStore.checkCompatible(path: path) } catch { throw DaemonError(error) }
            }
            // SQLite writes its journal next to the database.
            try checkWritableDirectory(Directory.parent(of: path), role: "store's directory")
            return OpenedStore(store: InMemoryAlertStore(), path: path, lastWriteFailure: { nil }, close: {})
        }
    }

    /// A directory alertd writes in must be one and be writable, or, when
    /// absent, be creatable: its nearest existing ancestor writable.
    private static func checkWritableDirectory(_ path: String, role: String) throws(DaemonError) {
        let files = FileManager.default
        let path = path.isEmpty ? "." : path
        if case .success(let status) = FileStatus.of(path) {
            guard status.kind == .directory else {
                throw DaemonError(code: .stateDirectory, message: "The \(role) \(path) is not a directory; point state_dir (or --state-dir) at a directory.")
            }
            guard files.isWritableFile(atPath: path) else {
                throw DaemonError(code: .stateDirectory, message: "The \(role) \(path) is not writable by this user; check as the user alertd runs as, or fix the directory's owner.")
            }
            return
        }
        var ancestor = path
        repeat {
            ancestor = Directory.parent(of: ancestor)
            if ancestor.isEmpty { ancestor = "." }
        } while !files.fileExists(atPath: ancestor) && ancestor != "/" && ancestor != "."
        guard files.isWritableFile(atPath: ancestor) else {
            throw DaemonError(code: .stateDirectory, message: "The \(role) \(path) does not exist and cannot be created in \(ancestor); create it, or pass --state-dir.")
        }
    }
}
