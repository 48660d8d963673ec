import CCurl
import FoundationEssentials
import Synchronization

/// An HTTP client on libcurl: a multi handle on a thread of its own carries
/// requests concurrently and reuses connections between them. A client may
/// have several (``HTTPClientConfiguration/threads``), each with its own
/// connections, and deals its requests out to them in turn. The pool is per
/// client, so requests that must not share connections (the operator's
/// webhooks and URLs from alert submitters) use separate clients.
///
/// ```swift
/// let response = try await HTTPClient.shared.send(
///     HTTPClientRequest(url: "http://localhost/v1/alerts", unixSocketPath: "/run/alertd/api.sock"))
/// ```
public final class HTTPClient: Sendable {
    /// A client for code that needs no settings of its own (the CLI), made on first use.
    public static let shared = HTTPClient()

    package let configuration: HTTPClientConfiguration
    /// Started by the first request, not before: until then no libcurl is
    /// loaded and no driver thread runs (an idle daemon, an alertctl that
    /// talks to a local alertd without libcurl). nil is "not started yet",
    /// empty is drivers libcurl could not make.
    private let drivers = Mutex<[CurlMultiDriver]?>(nil)
    /// Which driver the next request goes to.
    private let turn = Atomic<UInt>(0)
    /// ``limitConnections(to:)``'s cap, for drivers started after it.
    private let connectionCap = Atomic<Int>(0)

    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
        self.configuration = configuration
    }

    deinit {
        drivers.withLock { $0?.forEach { $0.shutdown() } }
    }

    /// Sends one request and waits for the whole response. Cancelling the
    /// calling task aborts the transfer with ``HTTPClientError/cancelled(url:)``.
    public func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let driver = try multiDriver(for: request)
        let transfer = CurlTransfer(request)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.completion = { continuation.resume(returning: $0) }
                driver.submit(transfer)
            }
        } onCancel: {
            Self.abort(transfer, on: driver)
        }
        return try result.get()
    }

    /// Sends one request with no task waiting for it: `completion` gets the
    /// whole response, or the failure, once, on the client's thread, where
    /// every other transfer of that thread waits while it runs, so it must
    /// return at once. The client is kept until then. What this returns can
    /// abort the transfer, which then completes with
    /// ``HTTPClientError/cancelled(url:)``.
    public func send(
        _ request: HTTPClientRequest, completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
    ) -> HTTPClientTransfer {
        let transfer = CurlTransfer(request)
        // The client's deinit would end its threads, and the transfer with them.
        transfer.completion = { [self] result in withExtendedLifetime(self) { completion(result) } }
        let driver: CurlMultiDriver
        do {
            driver = try multiDriver(for: request)
        } catch {
            transfer.finish(.failure(error))
            return HTTPClientTransfer(transfer: transfer, driver: nil)
        }
        driver.submit(transfer)
        return HTTPClientTransfer(transfer: transfer, driver: driver)
    }

    /// Sends one request and returns as soon as the response head is in;
    /// the body follows in ``HTTPClientStreamingResponse/body`` as the server
    /// sends it, for as long as it keeps the response open (Server-Sent
    /// Events). `maxResponseBytes` does not apply; `timeout` still limits the
    /// whole exchange, and `idleTimeout` a silence. Cancelling the calling
    /// task, or the task reading the body, or dropping the body, aborts the
    /// transfer.
    public func stream(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientStreamingResponse {
        let driver = try multiDriver(for: request)
        let transfer = CurlTransfer(request)
        let (body, bodyContinuation) = AsyncThrowingStream<Data, any Error>.makeStream(bufferingPolicy: .bufferingOldest(Self.maxUnreadChunks))
        transfer.bodyContinuation = bodyContinuation
        bodyContinuation.onTermination = { termination in
            // `.finished` comes from the transfer itself; only a reader that went away needs the abort.
            guard case .cancelled = termination else { return }
            Self.abort(transfer, on: driver)
        }
        let head = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.headContinuation = continuation
                driver.submit(transfer)
            }
        } onCancel: {
            Self.abort(transfer, on: driver)
        }
        let response = try head.get()
        return HTTPClientStreamingResponse(status: response.status, headers: response.headers, body: body)
    }

    /// How many chunks of a streamed body (libcurl hands over up to 16 kB
    /// at a time) may wait for their reader: some 16 MB. A server sending
    /// faster than the reader reads loses the connection past it, rather
    /// than growing the reader without bound (an endless event line took a
    /// watcher to 6.6 GB in 20 s).
    public static let maxUnreadChunks = 1_024

    /// The multi driver whose turn it is, or the error a request gets when
    /// libcurl could not start one.
    /// Caps the connections this client keeps open at once, idle ones
    /// included, at `total` (or its configured cap, if lower); further
    /// requests wait for one. Takes effect at once, on running drivers too.
    public func limitConnections(to total: Int) {
        drivers.withLock { drivers in
            connectionCap.store(total, ordering: .relaxed)
            guard let drivers, !drivers.isEmpty else { return }
            let share = capped.perThread.maxConnections
            for driver in drivers { driver.limitConnections(to: share) }
        }
    }

    /// ``configuration`` with ``limitConnections(to:)``'s cap.
    private var capped: HTTPClientConfiguration {
        var c = configuration
        let cap = connectionCap.load(ordering: .relaxed)
        if cap > 0 { c.maxConnections = c.maxConnections > 0 ? min(c.maxConnections, cap) : cap }
        return c
    }

    private func multiDriver(for request: HTTPClientRequest) throws(HTTPClientError) -> CurlMultiDriver {
        let started = drivers.withLock { drivers in
            if drivers == nil {
                let share = capped.perThread
                drivers = (0..<share.threads).compactMap { _ in CurlMultiDriver(configuration: share) }
            }
            return drivers!
        }
        guard !started.isEmpty else {
            throw .other(url: request.redactedURL, curl: CurlError(CURLE_FAILED_INIT, detail: "curl_multi_init failed; the system is out of memory"))
        }
        return started[Int(turn.wrappingAdd(1, ordering: .relaxed).oldValue % UInt(started.count))]
    }

    /// Aborts a transfer whose caller went away.
    static func abort(_ transfer: CurlTransfer, on driver: CurlMultiDriver) {
        transfer.cancelRequested.store(true, ordering: .relaxed)
        driver.cancel(transfer)
    }
}
