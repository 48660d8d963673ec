import Foundation
import Testing
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdPostgresStore

/// Every store backend, for the conformance suite.
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case inMemory
    case postgres

    /// A fresh, empty store of this backend, its files (if any) in `dir`.
    func make(in dir: TemporaryDirectory) throws -> any AlertStore {
        switch self {
        case .sqlite: try SQLiteAlertStore(path: dir.path + "/\(UUID().uuidString).db")
        case .inMemory: InMemoryAlertStore()
        // Two readers: the suite's cases run at once, each store with its own connections.
        case .postgres: try PostgresAlertStore(url: try PostgresServer.shared().makeDatabase(), node: "test", readers: 2)
        }
    }

    var testDescription: String { rawValue }
}
