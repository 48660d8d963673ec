import AlertdStore

extension APIError {
    /// A store failure is alertd's trouble, not the caller's request: always
    /// 503 with the store's code, never a 404 that would tell a client the
    /// alert is gone when it could not be looked at.
    public init(_ error: StoreError) {
        self.init(status: 503, code: error.code.rawValue, message: error.message,
                  headers: ["Retry-After": String(Self.retryAfterSeconds(error.code))])
    }

    /// How long a caller should wait. A database that cannot be opened or
    /// read needs an operator first, so asking again soon only adds load;
    /// anything else (I/O, a restart) may pass within seconds.
    package static func retryAfterSeconds(_ code: StoreError.Code) -> Int {
        switch code {
        case .cannotOpen, .incompatible, .corrupt: 60
        default: 5
        }
    }

    /// One store call, its failure answered as above:
    /// `try await APIError.storeCall(await store.record(id: id))`.
    package static func storeCall<T>(_ call: @autoclosure () async throws(StoreError) -> T) async throws(APIError) -> T {
        do {
            return try await call()
        } catch {
            throw APIError(error)
        }
    }
}
