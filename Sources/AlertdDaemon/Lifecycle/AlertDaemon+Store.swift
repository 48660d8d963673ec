import FoundationEssentials
import AlertdAPI
import AlertdLogging
import AlertdPOSIX
import AlertdPostgresStore
import AlertdSQLiteStore
import AlertdStore
import AlertModel
import AlertdServices

extension AlertDaemon {
    /// The store the daemon runs on, and how to close it once every service
    /// has stopped.
    package struct OpenedStore: Sendable {
        package let store: any AlertStore
        package let path: String
        /// Why writes fail for want of disk, permission or I/O; nil while they work.
        package let lastWriteFailure: @Sendable () -> StoreError?
        package let close: @Sendable () -> Void
        /// Takes what to call when another node sharing the store commits
        /// news (PostgreSQL); a store of one node never calls it.
        package var onRemoteChange: @Sendable (@escaping @Sendable () -> Void) -> Void = { _ in }
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
        if config.store.isPostgres { return try openPostgres(config, mode: mode, metrics: metrics, changes: changes, log: log) }
        let path = config.resolvedStorePath
        switch mode {
        case .run:
            let lock = try claimStateDirectory(config.stateDirectory, log: log)
            let storeLock: LockFile
            do throws(DaemonError) {
                try requireStoreDirectory(config, mode: mode)
                storeLock = try claimStoreFile(path)
            } catch {
                lock.release()
                throw error
            }
            do {
                let store = try SQLiteAlertStore(
                    path: path, onCommit: committed(metrics, changes), onWriteFailureChange: writeFailureLogger(log, "store"))
                logSchema(store.schemaUpgrade, of: path, log: log)
                if let why = store.cannotShrink {
                    log.notice("the store file keeps the space of pruned alerts: \(why); to let it shrink, stop alertd and run "
                               + "`\(SQLiteAlertStore.conversionCommand(path: path))` (it needs as much free disk as the file holds)", ["path": path])
                }
                return OpenedStore(store: store, path: path, lastWriteFailure: { store.lastWriteFailure }, close: {
                    // After the store: closing the lock's descriptor drops SQLite's own locks on the file.
                    store.close()
                    storeLock.release()
                    lock.release()
                })
            } catch {
                storeLock.release()
                lock.release()
                throw DaemonError(error)
            }
        case .check:
            try checkWritableDirectory(config.stateDirectory, role: "state directory")
            try requireStoreDirectory(config, mode: mode)
            do { try SQLiteAlertStore.refuseOrphanedJournal(path) } catch { throw DaemonError(error) }
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

    /// The PostgreSQL store: the state directory is still this node's (its
    /// lock, the action-link key), the alerts are in the shared database.
    /// To check, the URL is read, the state directory checked, and the
    /// database connected to and looked at (``PostgresAlertStore/checkCompatible(url:)``),
    /// but nothing written.
    private static func openPostgres(_ config: DaemonConfiguration, mode: Mode, metrics: DaemonMetrics,
                                     changes: ChangeSignal, log: Logger) throws(DaemonError) -> OpenedStore {
        let url = try storeURL(config)
        let redacted = URLRedaction.redactingPassword(url)
        if config.store.url != nil, redacted != url {
            // The configuration file is rarely kept as close as a secret.
            log.warning("store.url holds a password (or another secret): whoever reads the configuration file reads it; put the URL in a file of mode 0600 named by store.url_file")
        }
        switch mode {
        case .run:
            let lock = try claimStateDirectory(config.stateDirectory, log: log)
            let stateDirectory = URL(fileURLWithPath: config.stateDirectory).standardizedFileURL.path
            let node = config.store.node ?? "\(ProcessInfo.processInfo.hostName):\(stateDirectory)"
            do {
                let store = try PostgresAlertStore(
                    url: url, node: node, onCommit: committed(metrics, changes), onWriteFailureChange: writeFailureLogger(log, "database"))
                log.info("store on PostgreSQL", ["store": redacted, "node": node])
                logSchema(store.schemaUpgrade, of: redacted, log: log)
                if store.namesakes > 0 {
                    log.warning("another running node has this node's name; give each node its own store.node, or the two take back and deliver again each other's deliveries in flight",
                                ["node": node])
                }
                var opened = OpenedStore(store: store, path: redacted, lastWriteFailure: { store.lastWriteFailure }, close: {
                    store.close()
                    lock.release()
                })
                opened.onRemoteChange = { handler in store.setRemoteChangeHandler(handler) }
                return opened
            } catch {
                lock.release()
                throw DaemonError(error)
            }
        case .check:
            try checkWritableDirectory(config.stateDirectory, role: "state directory")
            try requireStoreDirectory(config, mode: mode)
            do { try PostgresAlertStore.checkCompatible(url: url) } catch { throw DaemonError(error) }
            return OpenedStore(store: InMemoryAlertStore(), path: redacted, lastWriteFailure: { nil }, close: {})
        }
    }

    /// Says what opening the store did to its tables. An upgrade is a
    /// notice: from then on the older alertd refuses the store, and going
    /// back means a backup taken before it (alertd takes none itself).
    private static func logSchema(_ upgrade: SchemaUpgrade?, of store: String, log: Logger) {
        guard let upgrade else { return }
        if upgrade.from == 0 {
            log.info("store created", ["store": store, "schema": "\(upgrade.to)"])
        } else {
            log.notice("store upgraded from an older alertd's schema; that alertd can no longer open it (to go back, restore a backup taken before this start, if one was made)",
                       ["store": store, "from": "\(upgrade.from)", "to": "\(upgrade.to)"])
        }
    }

    /// What a store calls after each commit: metrics, and a wake-up for
    /// the event streams.
    private static func committed(_ metrics: DaemonMetrics, _ changes: ChangeSignal) -> @Sendable (Int) -> Void {
        { batch in
            metrics.committed(batch: batch)
            changes.notify()
            // Deliveries and maintenance free memory too, with no request to tell of it.
            HeapTrimmer.shared.workEnded()
        }
    }

    /// What a store calls when writes start failing (the `noun` cannot be
    /// written) and when they work again.
    private static func writeFailureLogger(_ log: Logger, _ noun: String) -> @Sendable (StoreError?) -> Void {
        { failure in
            if let failure, failure.code == .corrupt {
                log.critical("the \(noun)'s database file is damaged; alertd cannot claim or record deliveries until it is restarted on a repaired file",
                             ["error": failure.message])
            } else if let failure {
                log.error("the \(noun) cannot be written; alerts are refused until a write succeeds", ["error": failure.message])
            } else {
                log.notice("the \(noun) takes writes again")
            }
        }
    }

    /// `store.url`, or the URL in `store.url_file` (a secret file: it holds
    /// the password).
    private static func storeURL(_ config: DaemonConfiguration) throws(DaemonError) -> String {
        if let url = config.store.url { return url }
        let path = config.resolve(config.store.urlFile ?? "")
        let url: String
        do { url = try SecretFile.read(path) } catch {
            throw DaemonError(code: .configuration, message: "store.url_file: \(error.message)")
        }
        guard DaemonConfiguration.StoreSection.isPostgresURL(url) else {
            throw DaemonError(code: .configuration, message: "store.url_file: \(path) must hold a PostgreSQL URL such as postgresql://alertd:secret@db.example:5432/alertd")
        }
        if let problem = DaemonConfiguration.StoreSection.urlProblem(url) {
            throw DaemonError(code: .configuration, message: "store.url_file: the URL in \(path): \(problem)")
        }
        return url
    }

    /// A directory alertd writes in must be one and be writable, or, when
    /// absent, be creatable: its nearest existing ancestor writable.
    /// alertd creates the state directory and no other: a `store.path` in
    /// a directory that does not exist is refused saying so, by
    /// `--check-config` as by a start (which had failed with SQLite's
    /// "unable to open database file", and the check had passed it).
    private static func requireStoreDirectory(_ config: DaemonConfiguration, mode: Mode) throws(DaemonError) {
        let directory = Directory.parent(of: config.resolvedStorePath)
        func standardized(_ path: String) -> String { URL(fileURLWithPath: path.isEmpty ? "." : path).standardizedFileURL.path }
        // Checking, the state directory may be one the start will create.
        if case .check = mode, standardized(directory) == standardized(config.stateDirectory) { return }
        guard case .failure = FileStatus.of(directory.isEmpty ? "." : directory) else { return }
        throw DaemonError(code: .store, message: "The store's directory \(directory) does not exist, and alertd creates only the state directory: create it for the user alertd runs as, or change store.path.")
    }

    private static func checkWritableDirectory(_ path: String, role: String) throws(DaemonError) {
        let files = FileManager.default
        let path = path.isEmpty ? "." : path
        if case .success(let status) = FileStatus.of(path) {
            guard status.kind == .directory else {
                throw DaemonError(code: .stateDirectory, message: "The \(role) \(path) is not a directory; point state_dir (or --state-dir) at a directory.")
            }
            guard case .success = Directory.probeCreation(in: path) else {
                throw DaemonError(code: .stateDirectory, message: "The \(role) \(path) is not writable by this user; check as the user alertd runs as, or fix the directory's owner.")
            }
            return
        }
        var ancestor = path
        repeat {
            ancestor = Directory.parent(of: ancestor)
            if ancestor.isEmpty { ancestor = "." }
        } while !files.fileExists(atPath: ancestor) && ancestor != "/" && ancestor != "."
        if case .success(let status) = FileStatus.of(ancestor), status.kind != .directory {
            throw DaemonError(code: .stateDirectory, message: "The \(role) \(path) cannot be created: \(ancestor) is not a directory; point state_dir (or --state-dir) elsewhere.")
        }
        if case .failure(let error) = Directory.probeCreation(in: ancestor) {
            throw DaemonError(code: .stateDirectory, message: "The \(role) \(path) does not exist and cannot be created in \(ancestor) (\(error)); create it, or pass --state-dir.")
        }
    }
}
