/// A failed libpq call: PostgreSQL's SQLSTATE when the server said why,
/// its message, and whether the connection itself was lost (then no
/// SQLSTATE may be known, and the work may or may not have happened).
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505`, `40P01`), nil when the
    /// failure happened before or beyond the server (no connection).
    public let sqlState: String?
    public let message: String
    /// What we were doing: the statement, or `connect`.
    public let context: String
    /// The connection is gone (`PQstatus` is `CONNECTION_BAD`) or never came up.
    public let connectionLost: Bool
    /// The session was given up after waiting the whole answer timeout for
    /// a statement: not a session that had died while idle, so not one to
    /// run the statement again on a new one for (behind a lock that waits
    /// would take the timeout twice).
    public var waitedOut = false

    package init(sqlState: String?, message: String, context: String, connectionLost: Bool) {
        self.sqlState = sqlState
        self.message = message
        self.context = context
        self.connectionLost = connectionLost
    }

    /// The database cannot be reached, rather than the work being wrong:
    /// a lost or refused connection (class 08), or a server shutting down
    /// (57P01–57P03). Worth a retry once it is back, never worth a 4xx.
    public var isConnectionFailure: Bool {
        if connectionLost { return true }
        guard let state = sqlState else { return false }
        return state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state)
    }

    /// The database takes no writes (25006): a hot standby, or a primary
    /// made read-only. Reads still work, so nothing but a write shows it.
    public var isReadOnlyRefusal: Bool { sqlState == "25006" }

    /// The user may not do this (42501): a grant missing or revoked. Reads
    /// may still work, and every write fails alike until it is granted.
    public var isPrivilegeRefusal: Bool { sqlState == "42501" }

    /// Another transaction got in the way: a deadlock or serialization
    /// failure (class 40) or a unique key taken meanwhile (23505). Running
    /// the same work again sees what the other one committed.
    public var isConflict: Bool {
        guard let state = sqlState else { return false }
        return state.hasPrefix("40") || state == "23505"
    }

    public var description: String {
        "postgresql \(sqlState ?? (connectionLost ? "connection lost" : "error")): \(message) (\(context))"
    }
}
