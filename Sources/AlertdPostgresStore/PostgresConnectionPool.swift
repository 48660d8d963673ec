import Dispatch
import FoundationEssentials
import Synchronization
import AlertdPostgres
import AlertdStore

/// A few connections for reads, each used by one caller at a time, on
/// Dispatch threads (every libpq call blocks).
final class PostgresConnectionPool: Sendable {
    private let idle: Mutex<[PostgresConnection]>
    private let available: DispatchSemaphore
    private static let queue = DispatchQueue(label: "alertd.pg.read", attributes: .concurrent)

    init(_ connections: [PostgresConnection]) {
        idle = Mutex(connections)
        available = DispatchSemaphore(value: connections.count)
    }

    /// Runs `body` on a free connection; a failure becomes a ``StoreError``
    /// naming `what`. `body` reads, so on a session that died idle it runs
    /// again on a new one.
    func run<T: Sendable>(_ what: String, _ body: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> T) async throws(StoreError) -> T {
        let result: Result<T, PostgresError> = await withCheckedContinuation { continuation in
            Self.queue.async { [self] in
                available.wait()
                let conn = idle.withLock { $0.removeLast() }
                let result = conn.withLock { c in Result { () throws(PostgresError) -> T in try c.retryingIfDeadWhileIdle(body) } }
                idle.withLock { $0.append(conn) }
                available.signal()
                continuation.resume(returning: result)
            }
        }
        do {
            return try result.get()
        } catch {
            throw StoreError.from(error, doing: what)
        }
    }
}
