/// A store operation that failed. `code` is stable; `message` says what an
/// operator can do about it.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The database file could not be opened or created.
        public static let cannotOpen = Code(rawValue: "store_cannot_open")
        /// The file is not an alertd store, or is from a newer alertd.
        public static let incompatible = Code(rawValue: "store_incompatible")
        /// A read or write failed (disk full, I/O error).
        public static let io = Code(rawValue: "store_io")
        /// The store is shutting down and takes no more work.
        public static let closed = Code(rawValue: "store_closed")
        /// Stored data could not be read back.
        public static let corrupt = Code(rawValue: "store_corrupt")
        /// It has not answered within a probe's deadline (a hung or frozen disk).
        public static let unresponsive = Code(rawValue: "store_unresponsive")
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) [\(code)]" }
}
