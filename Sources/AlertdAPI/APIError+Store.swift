import AlertdStore

extension APIError {
    /// A store failure is alertd's trouble, not the caller's request: always
    /// 503 with the store's code, never a 404 that would tell a client the
    /// alert is gone when it could not be looked at.
    public init(_ error: StoreError) {
        self.init(status: 503, code: error.code.rawValue, message: error.message,
                  headers: ["Retry-After": String(Self.retryAfterSeconds(error.code))])
        storeFailure = error.code
    }

    /// This error as a TCP caller gets it: a store failure names its kind
    /// and points at alertd's log, which has the store's own words. Those
    /// quote a PostgreSQL server's host and port, or the database file's
    /// path, and TCP callers include whoever holds an action link, which
    /// needs no token. On the Unix socket, the machine's own users get the
    /// whole error, as `/v1/health` gives it.
    package var withoutStoreDetail: APIError {
        guard let code = storeFailure else { return self }
        var error = self
        switch code {
        case .closed, .unresponsive: return self  // their words name nothing
        case .corrupt: error.message = "alertd's store is damaged and takes no writes; alertd's log says why."
        case .cannotOpen, .incompatible: error.message = "alertd's store cannot be used; alertd's log says why."
        default: error.message = "alertd's store could not be read or written just now; alertd's log says why. Try again shortly."
        }
        return error
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
