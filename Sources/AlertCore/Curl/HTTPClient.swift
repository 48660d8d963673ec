import CCurl
import Foundation

/// An HTTP client on libcurl: one multi handle on one thread carries every
/// request of this client concurrently and reuses connections between them.
///
/// ```swift
/// let response = try await HTTPClient.shared.send(
///     HTTPClientRequest(url: "http://localhost/v1/alerts", unixSocketPath: "/run/alertd/api.sock"))
/// ```
public final class HTTPClient: Sendable {
    /// A client for code that needs no settings of its own (the CLI), made on first use.
    public static let shared = HTTPClient()

    private let driver: CurlMultiDriver?

    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
        driver = CurlMultiDriver(configuration: configuration)
    }

    deinit {
        driver?.shutdown()
    }

    /// Sends one request and waits for the whole response. Cancelling the
    /// calling task aborts the transfer with ``HTTPClientError/cancelled(url:)``.
    public func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        guard let driver else {
            throw .other(url: request.url, curl: CurlError(CURLE_FAILED_INIT, detail: "curl_multi_init failed; the system is out of memory"))
        }
        let transfer = CurlTransfer(request)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                driver.submit(transfer)
            }
        } onCancel: {
            transfer.cancelRequested.store(true, ordering: .relaxed)
            driver.cancel(transfer)
        }
        return try result.get()
    }
}
