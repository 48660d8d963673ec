import FoundationEssentials
import AlertdHTTP

/// One request for ``HTTPClient``. Redirects are never followed: a 3xx comes
/// back as the response.
public struct HTTPClientRequest: Sendable {
    /// What to do with a response body longer than `maxResponseBytes`.
    public enum OversizedResponse: Sendable, Equatable {
        /// Throw ``HTTPClientError/responseTooLarge(url:limit:)``. For callers
        /// that must read the whole body (the CLI parsing the API's JSON).
        case fail
        /// Keep the first `maxResponseBytes` bytes and stop reading; the
        /// response says so in ``HTTPClientResponse/bodyTruncated``. For
        /// callers that mostly care about the status (webhooks).
        case truncate
    }

    /// An `http` or `https` URL. With `unixSocketPath` the host part only fills the `Host` header.
    public var url: String
    public var method: String
    public var headers: HTTPHeaders
    /// Sent as is. Unless `headers` says otherwise, no `Content-Type` is sent.
    public var body: Data?
    /// Limit for establishing the connection (at least 1 ms).
    public var connectTimeout: Duration
    /// Limit for the whole exchange, connecting included (at least 1 ms).
    public var timeout: Duration
    /// Talk HTTP over this Unix-domain socket instead of TCP (`CURLOPT_UNIX_SOCKET_PATH`).
    public var unixSocketPath: String?
    /// With `unixSocketPath`: judges the user the server on the socket runs
    /// as (`SO_PEERCRED`; nil when the kernel does not say) and says why it
    /// must not be sent the request, or nil. Judged on the connection the
    /// request goes out on, made for it and not taken from the pool, before
    /// a byte is sent: whatever is put at the path meanwhile, the judged
    /// server is the one that answers. On the client's thread: keep it quick.
    public var unixSocketPeerCheck: (@Sendable (_ userID: UInt32?) -> String?)?
    public var maxResponseBytes: Int
    public var oversizedResponse: OversizedResponse
    /// Consulted before connecting and again before the request is sent;
    /// may refuse the address actually connected to. With a policy the
    /// request uses no proxy and its path goes out unnormalised
    /// (``HTTPConnectPolicy``).
    public var connectPolicy: HTTPConnectPolicy?
    /// Give up when no byte arrives for this long (`CURLOPT_LOW_SPEED_TIME`
    /// with a limit of one byte a second); nil waits as long as `timeout`.
    /// For streams that stay open and send keep-alives.
    public var idleTimeout: Duration?
    /// libcurl's receive buffer in bytes (`CURLOPT_BUFFERSIZE`, at least
    /// 1,024); nil keeps libcurl's 16 kB. A hint: a reused handle that still
    /// holds a buffer reads into that one. libcurl allocates the buffer for
    /// every transfer; callers whose answers are a status and a few words
    /// (deliveries) take ``smallReceiveBuffer``, which the allocator serves
    /// from its per-thread cache, and hold 1 kB per request in flight rather
    /// than 16, at a `recv` per kilobyte of answer.
    public var receiveBufferSize: Int?

    /// The smallest receive buffer libcurl takes, for small answers.
    public static let smallReceiveBuffer = 1024

    public init(
        url: String, method: String = "GET", headers: HTTPHeaders = [:], body: Data? = nil,
        connectTimeout: Duration = .seconds(10), timeout: Duration = .seconds(30),
        unixSocketPath: String? = nil, maxResponseBytes: Int = 64 * 1024,
        oversizedResponse: OversizedResponse = .fail, connectPolicy: HTTPConnectPolicy? = nil,
        idleTimeout: Duration? = nil, receiveBufferSize: Int? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.unixSocketPath = unixSocketPath
        self.maxResponseBytes = maxResponseBytes
        self.oversizedResponse = oversizedResponse
        self.connectPolicy = connectPolicy
        self.idleTimeout = idleTimeout
        self.receiveBufferSize = receiveBufferSize
    }
}
