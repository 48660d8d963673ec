import Foundation
import Testing
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// Every store backend, for the conformance suite.
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case inMemory

    /// A fresh, empty store of this backend, its files (if any) in `dir`.
    func make(in dir: TemporaryDirectory) throws -> any AlertStore {
        switch self {
        case .sqlite: try SQLiteAlertStore(path: dir.path + "/\(UUID().uuidString).db")
        case .inMemory: InMemoryAlertStore()
        }
    }

    var testDescription: String { rawValue }
}
