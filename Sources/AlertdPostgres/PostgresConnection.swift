import CPostgreSQL
import AlertModel
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One libpq connection to PostgreSQL, which comes back by itself after the
/// server went away: a call on a lost connection reconnects first, at most
/// once per backoff step (100 ms doubling to 1 s), and fails at once with
/// the last error in between, so a database that is down costs callers no
/// waiting.
///
/// `@unchecked Sendable` is safe because the C handle and the backoff state
/// are only touched inside `withLock`, which serialises callers; libpq
/// allows one thread at a time on a connection, and this lock is that rule.
/// Every call blocks, so callers run on Dispatch threads, never on Swift's
/// cooperative pool.
package final class PostgresConnection: @unchecked Sendable {
    /// The URL without its password, for messages and logs.
    package let redactedURL: String
    private let url: String
    private let lock = Mutex<Void>(())
    private var handle: OpaquePointer?
    private var backoff: Duration = .milliseconds(100)
    private var nextAttempt = ContinuousClock.now
    private var lastFailure: PostgresError?
    /// Runs on every new connection (session settings, `LISTEN`).
    private let onConnect: @Sendable (PostgresConnection) throws(PostgresError) -> Void
    /// What the server shows for the session (`pg_stat_activity.application_name`).
    private let applicationName: String

    /// A refused connect costs the server next to nothing, and a longer
    /// step kept a node refusing requests for seconds after the database
    /// was back.
    private static let maxBackoff: Duration = .seconds(1)

    /// Connects to `url` (`postgresql://user@host:port/db`, or any libpq
    /// connection string), then runs `onConnect` on the new session; again
    /// after each reconnect. Calls `PQconnectdbParams`.
    package init(
        url: String, redactedURL: String, applicationName: String = "alertd",
        onConnect: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> Void = { _ throws(PostgresError) in }
    ) throws(PostgresError) {
        self.url = url
        self.redactedURL = redactedURL
        self.applicationName = applicationName
        self.onConnect = onConnect
        try withLock { conn throws(PostgresError) in try conn.connect() }
    }

    deinit {
        if let handle { alertd_pq_finish(handle) }
    }

    /// Runs `body` with exclusive use of the connection.
    package func withLock<T, E: Error>(_ body: (PostgresConnection) throws(E) -> T) throws(E) -> T {
        try lock.withLock { _ throws(E) -> T in try body(self) }
    }

    /// Whether the session is up, as libpq last saw it (`PQstatus`). Only inside `withLock`.
    package var isConnected: Bool { handle.map { alertd_pq_status($0) == CONNECTION_OK } ?? false }

    /// The socket libpq reads from, for waiting on notifications (`PQsocket`). Only inside `withLock`.
    package var socket: Int32 { handle.map { alertd_pq_socket($0) } ?? -1 }

    /// Reconnects if the session was lost, within the backoff. Only inside `withLock`.
    package func ensureConnected() throws(PostgresError) {
        if isConnected { return }
        if ContinuousClock.now < nextAttempt, let lastFailure { throw lastFailure }
        try connect()
    }

    /// Why libpq cannot read `url` as a connection URL (a bad percent
    /// escape, an unknown parameter), its password taken out; nil when it
    /// can, or when libpq cannot be loaded (connecting says so).
    package static func urlProblem(_ url: String) -> String? {
        guard alertd_pq_load() == nil else { return nil }
        var reason = [CChar](repeating: 0, count: 512)
        guard alertd_pq_url_problem(url, &reason, reason.count) != 0 else { return nil }
        return URLRedaction.hidingPassword(of: url, in: reason.withUnsafeBufferPointer { trimmed($0.baseAddress) })
    }

    private func connect() throws(PostgresError) {
        // libpq is loaded here, on the first connection, not at start (see CPostgreSQL/shim.h).
        if let reason = alertd_pq_load() {
            let error = PostgresError(sqlState: nil, message: String(cString: reason), context: "connect to \(redactedURL)", connectionLost: false)
            failed(error)
            throw error
        }
        disconnect()
        // Before the URL, which may set its own: TCP keepalives notice an
        // idle session's peer cut off without a reset (libpq 9.x has them).
        // The server's side too (`options`): a node cut off inside a
        // transaction left it open on the server with its locks, the event
        // log's among them, and every other node's writes waited on them
        // for as long as the session lived (two hours with the server's
        // default keepalives). PostgreSQL ends such a transaction after
        // `idle_in_transaction_session_timeout`; alertd's own never pause
        // between statements for more than milliseconds.
        let keywords = ["keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "options",
                        "dbname", "connect_timeout", "application_name"]
        let values = ["1", "10", "5", "3", Self.sessionOptions, url, "3", applicationName]
        let conn = withCStrings(keywords) { k in withCStrings(values) { v in alertd_pq_connectdb_params(k, v, 1) } }
        guard let conn, alertd_pq_status(conn) == CONNECTION_OK else {
            // libpq quotes the parts of a URL it could not read, password included.
            let message = URLRedaction.hidingPassword(of: url, in: conn.map { Self.trimmed(alertd_pq_error_message($0)) } ?? "out of memory")
            if let conn { alertd_pq_finish(conn) }
            let error = PostgresError(sqlState: nil, message: message, context: "connect to \(redactedURL)", connectionLost: true)
            failed(error)
            throw error
        }
        // NOTICEs ("relation already exists, skipping") are not errors; libpq
        // would print them on stderr.
        alertd_pq_set_notice_processor(conn, { _, _ in }, nil)
        handle = conn
        do throws(PostgresError) {
            try onConnect(self)
        } catch {
            // Not kept: ``ensureConnected()`` would take the session as set
            // up and never run `onConnect` again. A hot standby reached
            // through a multi-host URL refuses `LISTEN`, and the listener
            // sat on it deaf until the session happened to drop.
            disconnect(after: error)
            throw error
        }
        backoff = .milliseconds(100)
        lastFailure = nil
    }

    /// Settings of every alertd session, on the server's side: a
    /// transaction its node leaves idle is ended, and a peer gone without a
    /// reset is noticed, within seconds.
    static let sessionOptions = "-c idle_in_transaction_session_timeout=15s -c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3"

    private func failed(_ error: PostgresError) {
        lastFailure = error
        nextAttempt = .now + backoff
        backoff = min(backoff * 2, Self.maxBackoff)
    }

    /// Closes the session; the next call connects anew, after the back-off
    /// when `error` says why. For a session on a server that takes no
    /// writes: libpq, given several hosts, may find the primary on a new
    /// one, and a database made writable again lets a new session write
    /// where an old one keeps its read-only default; the back-off keeps
    /// every batch from connecting anew meanwhile. Only inside `withLock`.
    package func disconnect(after error: PostgresError? = nil) {
        if let handle { alertd_pq_finish(handle) }
        handle = nil
        if let error { failed(error) }
    }

    /// Runs `body`, and once more on a new session if the one it had
    /// turned out dead: a server restart closes idle sessions, and libpq
    /// learns of it only when the next call fails. For work that did
    /// nothing on a session that failed under it: reads, or a `BEGIN`.
    /// Only inside `withLock`.
    package func retryingIfDeadWhileIdle<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(PostgresError) -> T {
        let wasUp = isConnected
        do {
            return try body(self)
        } catch where wasUp && error.connectionLost && !error.waitedOut && !isConnected {
            return try body(self)
        }
    }

    /// How long the server may send nothing while a statement runs before
    /// the session is given up as lost (a lock held that long by another
    /// session counts too). A server stopped or cut off without a reset keeps the
    /// connection open and silent; waiting on it held every request, the
    /// health check too, for as long as that lasted (a quarter of an hour,
    /// the kernel's own timeout, when packets are dropped).
    package static let answerTimeout: Duration = .seconds(15)

    /// Runs one or more statements without parameters (`PQexec`), waiting
    /// at most `timeout` for the answer. Only inside `withLock`.
    package func execute(_ sql: String, timeout: Duration = answerTimeout) throws(PostgresError) {
        try ensureConnected()
        _ = try consume(try run(sql, [], parameters: false, timeout: timeout), context: sql)
    }

    /// Runs one statement with `$1…` parameters, sent separately from the
    /// SQL and never spliced into it (`PQexecParams`, text format). Only
    /// inside `withLock`.
    @discardableResult
    package func query(_ sql: String, _ parameters: [PostgresValue] = [], timeout: Duration = answerTimeout) throws(PostgresError) -> PostgresResult {
        try ensureConnected()
        return try consume(try run(sql, parameters.map(\.wire), parameters: true, timeout: timeout), context: sql)
    }

    /// Sends `sql` and waits for its last result, within `timeout`; past
    /// it the session is closed (what was sent may yet run, as with any
    /// lost connection) and the next call connects anew.
    private func run(_ sql: String, _ texts: [String?], parameters: Bool, timeout: Duration) throws(PostgresError) -> OpaquePointer? {
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        var timedOut: Int32 = 0
        let result = withCStrings(texts) { values in
            alertd_pq_exec_within(handle, sql, Int32(texts.count), parameters ? values : nil, milliseconds, &timedOut)
        }
        guard timedOut == 0 else {
            disconnect()
            var error = PostgresError(sqlState: nil, message: "the database sent nothing for \(timeout.alertdDescription)",
                                      context: String(sql.prefix(200)), connectionLost: true)
            error.waitedOut = true
            throw error
        }
        guard result != nil else {
            // Sending or reading failed, perhaps with the statement still in
            // progress on a session libpq thinks is up: a new one next time.
            let error = lost(sql)
            disconnect()
            throw error
        }
        return result
    }

    /// The first column of the first row as an integer, if any.
    package func scalar(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> Int64? {
        try query(sql, parameters).rows.first?.optionalInt(0)
    }

    /// Reads what the server sent and returns the channels of the
    /// notifications that arrived (`PQconsumeInput`, `PQnotifies`). Only
    /// inside `withLock`.
    package func notifications() throws(PostgresError) -> [String] {
        try ensureConnected()
        guard alertd_pq_consume_input(handle) == 1 else {
            throw lost("read notifications")
        }
        var channels: [String] = []
        while let n = alertd_pq_notifies(handle) {
            channels.append(String(cString: n.pointee.relname))
            alertd_pq_freemem(n)
        }
        return channels
    }

    /// Copies the rows out and frees the result; a failure becomes a
    /// ``PostgresError`` with the server's SQLSTATE.
    private func consume(_ result: OpaquePointer?, context: String) throws(PostgresError) -> PostgresResult {
        guard let result else { throw lost(context) }
        defer { alertd_pq_clear(result) }
        switch alertd_pq_result_status(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            let (rowCount, columnCount) = (alertd_pq_ntuples(result), alertd_pq_nfields(result))
            var rows: [PostgresRow] = []
            rows.reserveCapacity(Int(rowCount))
            for r in 0..<rowCount {
                var fields: [String?] = []
                fields.reserveCapacity(Int(columnCount))
                for c in 0..<columnCount {
                    fields.append(alertd_pq_getisnull(result, r, c) == 1 ? nil : String(cString: alertd_pq_getvalue(result, r, c)))
                }
                rows.append(PostgresRow(fields: fields))
            }
            let affected = Int(String(cString: alertd_pq_cmd_tuples(result))) ?? 0
            return PostgresResult(rows: rows, affected: affected)
        default:
            let state = alertd_pq_result_error_field(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = alertd_pq_result_error_field(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let message = primary ?? Self.trimmed(alertd_pq_result_error_message(result))
            // A session lost here is made anew by the next call, at once: only
            // a failed connect waits out the backoff.
            throw PostgresError(sqlState: state, message: message, context: String(context.prefix(200)), connectionLost: !isConnected)
        }
    }

    private func lost(_ context: String) -> PostgresError {
        let message = handle.map { Self.trimmed(alertd_pq_error_message($0)) } ?? "not connected"
        return PostgresError(sqlState: nil, message: message.isEmpty ? "connection lost" : message,
                             context: String(context.prefix(200)), connectionLost: true)
    }

    private static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "" }
        // libpq breaks its messages into indented lines and ends them with a
        // line break; one line reads better in a log entry or an error body.
        return String(cString: text).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// Calls `body` with a NULL-terminated C array of `strings` (nil entries are
/// NULL pointers), valid for the call only.
private func withCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
    defer { for c in copies { free(c) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
