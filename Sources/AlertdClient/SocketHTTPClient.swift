import FoundationEssentials
import Synchronization
import AlertModel
import AlertdCurl
import AlertdHTTP
import AlertdPOSIX

/// HTTP/1.1 to alertd itself without libcurl: over its Unix socket, or plain
/// HTTP to a numeric loopback address (`http://127.0.0.1:9190`). alertctl
/// makes one call per run, and a script may run it once per alert: loading
/// libcurl and its TLS stack costs more than the whole exchange with a
/// local daemon. Everything else (https, a remote host, a name to resolve,
/// a proxy) goes through ``HTTPClient`` (libcurl), and so do streams.
///
/// One request per connection (`Connection: close`); the answer's body is
/// read by `Content-Length`, chunks, or to the end of the connection.
package struct SocketHTTPClient: Sendable {
    private enum Destination: Sendable {
        case unixSocket(String)
        case tcp(host: String, port: UInt16)
    }

    private let request: HTTPClientRequest
    private let destination: Destination
    /// `localhost` or `127.0.0.1:9190`, for the `Host` header.
    private let authority: String
    /// The path and query: `/v1/alerts?limit=5`.
    private let target: String

    /// Takes `request` when it goes to a Unix socket or to plain HTTP on a
    /// numeric loopback address; nil for any other. A Unix socket whose
    /// server the request's ``HTTPClientRequest/unixSocketPeerCheck``
    /// refuses is not sent it.
    package init?(_ request: HTTPClientRequest) {
        guard request.connectPolicy == nil, request.idleTimeout == nil,
              let rest = request.url.hasPrefix("http://") ? request.url.dropFirst(7) : nil else { return nil }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
        if !path.hasPrefix("/") { path = "/" + path }
        guard !authority.contains("@"), !path.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return nil }
        self.request = request
        self.authority = String(authority)
        self.target = path
        if let socket = request.unixSocketPath {
            destination = .unixSocket(socket)
            return
        }
        let host: Substring, port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            port = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = authority.lastIndex(of: ":") {
            (host, port) = (authority[..<colon], authority[authority.index(after: colon)...])
        } else {
            (host, port) = (authority, nil)
        }
        guard Self.isLoopback(host), let portNumber = port.map({ UInt16($0) }) ?? 80 else { return nil }
        destination = .tcp(host: String(host), port: portNumber)
    }

    /// `127.0.0.0/8` and `::1`, written as numbers: nothing to resolve, and
    /// no proxy applies (curl skips proxies for loopback too).
    private static func isLoopback(_ host: Substring) -> Bool {
        if host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Sends the request and reads the whole answer, on a thread of its
    /// own: the socket calls block. Cancelling the calling task ends the
    /// exchange at once (once connected) with ``HTTPClientError/cancelled(url:)``:
    /// `send --wait` stopped at its `--timeout` and then sat out a slow
    /// answer's whole 30 s.
    package func send() async throws(HTTPClientError) -> HTTPClientResponse {
        try request.validateHeaders()
        let exchange = Exchange()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>) in
                DetachedThread.start(name: "alertctl-http") { continuation.resume(returning: perform(exchange)) }
            }
        } onCancel: {
            exchange.cancel()
        }
        return try result.get()
    }

    /// The connection of one exchange, for a cancellation that comes from
    /// another thread while the exchange's thread blocks on it.
    private final class Exchange: Sendable {
        private struct State {
            var cancelled = false
            var socket: StreamSocket?
        }
        private let state = Mutex(State())

        var isCancelled: Bool { state.withLock { $0.cancelled } }

        /// Keeps `socket` for ``cancel()``; false if the exchange is already cancelled.
        func hold(_ socket: StreamSocket) -> Bool {
            state.withLock { state in
                guard !state.cancelled else { return false }
                state.socket = socket
                return true
            }
        }

        func cancel() {
            state.withLock { state in
                state.cancelled = true
                state.socket?.shutDown()
            }
        }
    }

    private func perform(_ exchange: Exchange) -> Result<HTTPClientResponse, HTTPClientError> {
        let url = request.redactedURL
        guard !exchange.isCancelled else { return .failure(.cancelled(url: url)) }
        let result = perform(exchange, url: url)
        // Whatever a shut connection looked like to the reader, it was the cancel.
        if case .failure = result, exchange.isCancelled { return .failure(.cancelled(url: url)) }
        return result
    }

    private func perform(_ exchange: Exchange, url: String) -> Result<HTTPClientResponse, HTTPClientError> {
        let start = ContinuousClock.now
        let connectLimit = min(request.connectTimeout, request.timeout)
        let deadline = start + request.timeout
        let connected = switch destination {
        case .unixSocket(let path): StreamSocket.connect(unixSocket: path, deadline: start + connectLimit)
        case .tcp(let host, let port): StreamSocket.connect(tcpHost: host, port: port, deadline: start + connectLimit)
        }
        let socket: StreamSocket
        switch connected {
        case .success(let s):
            socket = s
        case .failure(.timedOut):
            return .failure(.timedOut(url: url, phase: .connect, after: connectLimit))
        case .failure(.failed(let error)):
            let address = switch destination {
            case .unixSocket(let path): path
            case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            }
            return .failure(.couldNotConnect(url: url, address: address, reason: HTTPClientError.connectFailureReason(errno: error.rawValue)))
        }
        // Checked on the connected socket, not its path: whatever was put at
        // the path between a look at it and the connect, this is who answers.
        if case .unixSocket(let path) = destination, let check = request.unixSocketPeerCheck, let who = check(socket.peerUserID) {
            return .failure(.couldNotConnect(url: url, address: path, reason: "its server \(who)"))
        }
        guard exchange.hold(socket) else { return .failure(.cancelled(url: url)) }
        func lost(_ failure: StreamSocket.Failure) -> HTTPClientError {
            switch failure {
            case .timedOut: .timedOut(url: url, phase: .response, after: request.timeout)
            case .failed(let error): .connectionLost(url: url, reason: error.description.lowercased())
            }
        }
        if let failure = socket.write(head() + (request.body.map { Array($0) } ?? []), deadline: deadline) {
            return .failure(lost(failure))
        }
        var reader = ResponseReader(socket: socket, deadline: deadline)
        switch reader.response(for: request) {
        case .success(let response): return .success(response)
        case .failure(.socket(let failure)): return .failure(lost(failure))
        case .failure(.malformed(let reason)): return .failure(.connectionLost(url: url, reason: reason))
        case .failure(.tooLarge): return .failure(.responseTooLarge(url: url, limit: request.maxResponseBytes))
        }
    }

    /// The request line and headers, with the framing headers this client owns.
    private func head() -> [UInt8] {
        var text = "\(request.method) \(target) HTTP/1.1\r\nHost: \(authority)\r\n"
        for field in request.headers
        where !["Host", "Content-Length", "Connection", "Transfer-Encoding", "Expect"].contains(where: { HTTPHeaders.sameName($0, field.name) }) {
            text += "\(field.name): \(field.value)\r\n"
        }
        if let body = request.body { text += "Content-Length: \(body.count)\r\n" }
        text += "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }
}

/// Reads one HTTP/1.1 response off a socket.
private struct ResponseReader {
    enum Failure: Error {
        case socket(StreamSocket.Failure)
        case malformed(String)
        case tooLarge
    }

    let socket: StreamSocket
    let deadline: ContinuousClock.Instant
    /// Bytes read and not yet taken.
    var buffer: [UInt8] = []
    var position = 0
    var ended = false

    init(socket: StreamSocket, deadline: ContinuousClock.Instant) {
        self.socket = socket
        self.deadline = deadline
    }

    mutating func response(for request: HTTPClientRequest) -> Result<HTTPClientResponse, Failure> {
        do throws(Failure) {
            var (status, headers) = try head()
            // An interim answer (100 Continue) comes before the real one; a
            // server that sends nothing else is answered, not waited out.
            var interim = 0
            while (100...199).contains(status) {
                interim += 1
                guard interim <= Self.maxInterimAnswers else { throw .malformed("the answer has over \(Self.maxInterimAnswers) interim (1xx) heads") }
                (status, headers) = try head()
            }
            var body: [UInt8] = []
            var truncated = false
            let limit = request.maxResponseBytes
            func take(_ bytes: ArraySlice<UInt8>) throws(Failure) {
                guard body.count + bytes.count <= limit else {
                    guard request.oversizedResponse == .truncate else { throw .tooLarge }
                    body += bytes.prefix(limit - body.count)
                    truncated = true
                    return
                }
                body += bytes
            }
            if request.method == "HEAD" || status == 204 || status == 304 {
                // No body, whatever the headers say.
            } else if headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
                while !truncated {
                    let sizeLine = try line()
                    let digits = sizeLine.prefix { $0 != ";" }.trimmingSpaces()
                    guard let size = Int(digits, radix: 16), size >= 0 else { throw .malformed("a chunk size is not a number") }
                    if size == 0 { break }
                    // Checked before the chunk is read: a chunk declared
                    // terabytes long was read whole, past the limit.
                    let room = limit - body.count
                    guard size <= room || request.oversizedResponse == .truncate else { throw .tooLarge }
                    try take(try bytes(min(size, room)))
                    if size > room {
                        truncated = true
                        break
                    }
                    guard try line().isEmpty else { throw .malformed("a chunk does not end with a line break") }
                }
            } else if let length = headers["Content-Length"] {
                guard let count = Int(length.trimmingSpaces()), count >= 0 else { throw .malformed("the Content-Length is not a number") }
                guard count <= limit || request.oversizedResponse == .truncate else { throw .tooLarge }
                try take(try bytes(min(count, limit)))
                truncated = truncated || count > limit
            } else {
                while true {
                    try take(buffer[position...])
                    position = buffer.count
                    guard !truncated, try fill() else { break }
                }
            }
            return .success(HTTPClientResponse(status: status, headers: headers, body: Data(body), bodyTruncated: truncated))
        } catch {
            return .failure(error)
        }
    }

    /// The status line and headers.
    private mutating func head() throws(Failure) -> (Int, HTTPHeaders) {
        let statusLine = try line()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
            throw .malformed("the answer is not HTTP/1.1")
        }
        var headers = HTTPHeaders()
        while true {
            let field = try line()
            if field.isEmpty { return (status, headers) }
            // Each line is bounded; their number must be too, and their bytes,
            // every head's together: 17 heads of 256 lines of 64 KB held 575 MB.
            guard headers.count < Self.maxHeaderLines else { throw .malformed("the answer has over \(Self.maxHeaderLines) header lines") }
            headBytes += field.utf8.count
            guard headBytes <= Self.maxHeadBytes else { throw .malformed("the answer's heads are over \(Self.maxHeadBytes >> 10) KB") }
            guard let colon = field.firstIndex(of: ":") else { throw .malformed("a header line has no colon") }
            headers.add(String(field[..<colon]), field[field.index(after: colon)...].trimmingSpaces())
        }
    }

    /// The most header lines an answer may have; alertd sends about ten.
    static let maxHeaderLines = 256

    /// The most bytes of header lines an answer's heads may hold together,
    /// as libcurl's 300 KB; alertd sends about 500.
    static let maxHeadBytes = 256 * 1024

    /// Header bytes read so far, interim heads included.
    private var headBytes = 0

    /// The most 1xx heads before the answer; alertd sends none.
    static let maxInterimAnswers = 16

    /// The next line, without its CRLF.
    private mutating func line() throws(Failure) -> String {
        // Counted from `position`: a fill that finds everything taken starts
        // the buffer over, and an index into it would point past its end.
        var searched = 0
        while true {
            if let newline = buffer[(position + searched)...].firstIndex(of: UInt8(ascii: "\n")) {
                let end = newline > position && buffer[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
                let text = String(decoding: buffer[position..<end], as: UTF8.self)
                position = newline + 1
                return text
            }
            searched = buffer.count - position
            guard searched < 64 * 1024 else { throw .malformed("a header line is too long") }
            guard try fill() else { throw .malformed("the connection closed before the response ended") }
        }
    }

    /// The next `count` bytes.
    private mutating func bytes(_ count: Int) throws(Failure) -> ArraySlice<UInt8> {
        while buffer.count - position < count {
            guard try fill() else { throw .malformed("the connection closed before the response ended") }
        }
        defer { position += count }
        return buffer[position..<(position + count)]
    }

    /// Reads more; false at the end of the connection. What was taken is
    /// let go first: kept until the buffer was all taken, a server whose
    /// every write ended inside a line (chunk sizes with 60 KB extensions,
    /// a byte of body each) grew alertctl to a gigabyte.
    private mutating func fill() throws(Failure) -> Bool {
        guard !ended else { return false }
        if position > 0 {
            buffer.removeSubrange(..<position)
            position = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        switch socket.read(into: &chunk, deadline: deadline) {
        case .success(0):
            ended = true
            return false
        case .success(let n):
            buffer += chunk[..<n]
            return true
        case .failure(let failure):
            throw .socket(failure)
        }
    }
}
