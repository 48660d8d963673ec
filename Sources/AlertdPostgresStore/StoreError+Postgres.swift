import AlertdPostgres
import AlertdStore

extension StoreError {
    /// A PostgreSQL failure as the store reports it. An unreachable database
    /// is `store_io`, which the API answers with 503 and a short Retry-After.
    static func from(_ error: PostgresError, doing what: String) -> StoreError {
        if error.isConnectionFailure {
            let refused = refusal(in: error.message)
            return StoreError(code: .io, message: "\(what) failed: \(refused?.what ?? "PostgreSQL cannot be reached") (\(error.message)). "
                + (refused?.advice ?? "Check that the database server runs and accepts this node's connections."))
        }
        switch error.sqlState {
        case "XX001": return StoreError(code: .corrupt, message: "\(what) failed: \(error.message).")
        case PostgresSchema.refusalState: return StoreError(code: .incompatible, message: error.message)
        case "53100": return StoreError(code: .io, message: "\(what) failed: the database server's disk is full (\(error.message)).")
        case "25006":
            return StoreError(code: .io, message: "\(what) failed: the database takes no writes (\(error.message)). Point store.url at the primary (with several hosts, add target_session_attrs=read-write), or check the database's default_transaction_read_only.")
        case "42501":
            return StoreError(code: .cannotOpen, message: "\(what) failed: \(error.message). The user in store.url lacks a privilege alertd needs: "
                + "for a new database, CREATE on its schema (or make the user the database's owner); for one alertd made, "
                + "SELECT, INSERT, UPDATE and DELETE on its tables and USAGE on its sequences.")
        case "28000", "28P01", "3D000":
            return StoreError(code: .cannotOpen, message: "\(what) failed: \(error.message). Check store.url: the user, its password and the database name.")
        default: return StoreError(code: .io, message: "\(what) failed: \(error.description)")
        }
    }

    /// What the server said when it turned the session away at connect, for
    /// the kinds an operator mends in store.url or pg_hba.conf rather than by
    /// starting the server. libpq gives no SQLSTATE at connect, so its
    /// message is read: the server's English (a server set to another
    /// language is told as "cannot be reached").
    private static let refusals: [(said: [String], what: String, advice: String)] = [
        (["password authentication failed"], "PostgreSQL refused the password",
         "Check the password in store.url (or its url_file) for that user."),
        (["database \"", "\" does not exist"], "the database in store.url does not exist",
         "Create it (createdb), or name one that exists."),
        (["role \"", "\" does not exist"], "the user in store.url does not exist",
         "Create it (createuser), or name one that exists."),
        (["no pg_hba.conf entry"], "PostgreSQL's pg_hba.conf lets no such connection in",
         "Add an entry for this node's address, the user and the database, and reload PostgreSQL."),
    ]

    private static func refusal(in message: String) -> (said: [String], what: String, advice: String)? {
        refusals.first { r in r.said.allSatisfy { message.contains($0) } }
    }
}
