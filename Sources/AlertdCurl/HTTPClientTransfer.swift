/// A request sent with ``HTTPClient/send(_:completion:)``, to abort it by.
public struct HTTPClientTransfer: Sendable {
    let transfer: CurlTransfer
    /// nil when the request never reached a driver (it has completed already).
    let driver: CurlMultiDriver?

    /// Aborts the transfer; its completion gets ``HTTPClientError/cancelled(url:)``,
    /// unless it has its answer already.
    public func cancel() {
        guard let driver else { return }
        HTTPClient.abort(transfer, on: driver)
    }
}
