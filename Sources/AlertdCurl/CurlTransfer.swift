import CCurl
import AlertdPOSIX
import FoundationEssentials
import AlertModel
import Synchronization
import AlertdHTTP

#if canImport(Glibc)
import Glibc
#endif

/// One request in flight on the multi driver: the caller's request, the easy
/// handle configured for it, and the response as it arrives.
///
/// A streaming transfer (``HTTPClient/stream(_:)``) sets `headContinuation`
/// and `bodyContinuation` instead of `completion`: the head is handed over
/// at the blank line that ends the final response's headers, and each body
/// chunk as libcurl writes it, unbuffered and without `maxResponseBytes`.
///
/// `@unchecked Sendable` is safe because after `submit` only the driver's
/// thread touches the mutable state (libcurl calls the callbacks on that
/// thread too); the caller only sets `completion` or the continuations before
/// submitting (the inbox lock orders the two) and flips `cancelRequested`,
/// an atomic.
package final class CurlTransfer: @unchecked Sendable {
    package let request: HTTPClientRequest
    /// Gets the whole response, or the failure, once, on the driver's thread.
    package var completion: (@Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void)?
    /// Streaming: resumed once, with the head (an empty body) or the failure before it.
    package var headContinuation: CheckedContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>?
    /// Streaming: gets the body as it arrives; finished, or failed, with the transfer.
    package var bodyContinuation: AsyncThrowingStream<Data, any Error>.Continuation?
    package let cancelRequested = Atomic(false)

    private var easy: CurlEasy?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private var headers = HTTPHeaders()
    private var body = Data()
    private var overflowed = false
    /// Streaming: the reader fell ``HTTPClient/maxUnreadChunks`` behind.
    private var readerBehind = false
    private var policyRefusal: String?
    /// How long a kept connection may have been idle and still carry a
    /// request, shorter than the receivers' own idle limits (gunicorn's 2 s,
    /// Node's and Apache's 5 s), so a request seldom crosses their close. A
    /// connection busy with deliveries is never idle this long. libcurl
    /// counts whole seconds and closes one idle *more* than this: 0 closes
    /// one idle a second or more, where 1 reused them up to 1.999 s.
    static let keptConnectionMaxIdleSeconds = 0
    /// How many times libcurl was about to send the request (the prereq callback).
    private var sends = 0
    /// libcurl was about to send the request a second time, and was stopped.
    private var resendRefused = false
    /// A peer-checked request's socket, as the open-socket callback made it.
    private var peerCheckedSocket: curl_socket_t?
    /// Why a peer-checked request's server was refused.
    private var peerRefusal: HTTPClientError?
    private var finished = false
    private var headDelivered = false
    /// Its host's count of transfers, while it is counted there (``CurlHostSlots``).
    var hostSlot: CurlHostSlots.Slot?
    /// Whether the request went, or was about to go, on a connection.
    var hasSent: Bool { sends > 0 }

    package init(_ request: HTTPClientRequest) {
        self.request = request
        errorBuffer.initialize(to: 0)
    }

    deinit {
        if let headerList { alertd_curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    /// The configured handle while the transfer runs.
    package var easyHandle: CurlEasy? { easy }

    // MARK: Setup

    /// Configures `spare` (a handle a finished transfer released), or a
    /// new easy handle; returns it for `curl_multi_add_handle`.
    package func makeEasyHandle(reusing spare: CurlEasy? = nil) throws(HTTPClientError) -> CurlEasy {
        guard let easy = spare ?? CurlEasy() else {
            throw .other(url: request.redactedURL, curl: CurlError(CURLE_OUT_OF_MEMORY))
        }
        try request.validateHeaders()
        do {
            try configure(easy)
        } catch {
            throw .other(url: request.redactedURL, curl: error)
        }
        self.easy = easy
        return easy
    }

    private func configure(_ easy: CurlEasy) throws(CurlError) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let profile = Profile(request)
        if easy.profile != profile {
            if easy.profile != nil { easy.reset() }
            easy.profile = nil
            try configureProfile(easy, profile)
            easy.profile = profile
        }
        try easy.set(CURLOPT_URL, request.url)
        try easy.set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        try easy.set(CURLOPT_PRIVATE, pointer: me)
        try easy.set(CURLOPT_WRITEDATA, pointer: me)
        try easy.set(CURLOPT_HEADERDATA, pointer: me)
        try easy.set(CURLOPT_PREREQDATA, pointer: me)
        if profile.confined { try confine(easy, me) }
        if profile.postsFields {
            let data = request.body ?? Data()
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: data.count)
            // COPYPOSTFIELDS: libcurl keeps its own copy, so `data` may go.
            if data.isEmpty {
                try easy.set(CURLOPT_COPYPOSTFIELDS, "")
            } else {
                let rc = data.withUnsafeBytes { alertd_curl_setopt_ptr(easy.handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
                guard rc == CURLE_OK else { throw CurlError(rc) }
            }
        }

        var list: UnsafeMutablePointer<curl_slist>?
        defer { headerList = list }
        for field in request.headers {
            // "Name;" is libcurl's spelling of a header with an empty value; "Name:" would remove it.
            // Assembled as bytes on the stack: a String per line, then its C copy, cost more than
            // libcurl's own append, and an array's appends a third of it.
            var name = field.name, value = field.value
            name.withUTF8 { name in
                value.withUTF8 { value in
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.count + value.count + 3) { line in
                        var end = line.initialize(fromContentsOf: name)
                        if value.isEmpty {
                            line[end] = UInt8(ascii: ";")
                            end += 1
                        } else {
                            line[end] = UInt8(ascii: ":")
                            line[end + 1] = UInt8(ascii: " ")
                            end = UnsafeMutableBufferPointer(rebasing: line[(end + 2)...]).initialize(fromContentsOf: value) + end + 2
                        }
                        line[end] = 0
                        list = line.withMemoryRebound(to: CChar.self) { alertd_curl_slist_append(list, $0.baseAddress) }
                    }
                }
            }
        }
        // libcurl would wait up to a second for "100 Continue" on larger bodies, and
        // label every body as a form; neither is wanted unless asked for.
        if !request.headers.contains("Expect") { list = alertd_curl_slist_append(list, "Expect:") }
        if request.body != nil, !request.headers.contains("Content-Type") { list = alertd_curl_slist_append(list, "Content-Type:") }
        // Set even when empty: a reused handle must not keep the last request's list.
        try easy.set(CURLOPT_HTTPHEADER, pointer: list)
    }

    /// The options of `profile`, on a handle new or reset.
    private func configureProfile(_ easy: CurlEasy, _ profile: Profile) throws(CurlError) {
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        // Threads and signals do not mix; timeouts use the multi loop, not SIGALRM.
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_FOLLOWLOCATION, 0)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, profile.connectTimeoutMilliseconds)
        try easy.set(CURLOPT_TIMEOUT_MS, profile.timeoutMilliseconds)
        // A kept connection idle this long is not taken again: a request sent
        // on one as its server closes it fails (it is not sent again, see the
        // prereq callback), and Node's and Apache's servers close theirs
        // after 5 s. libcurl's own limit is 118 s.
        try easy.set(CURLOPT_MAXAGE_CONN, Self.keptConnectionMaxIdleSeconds)
        if let path = profile.unixSocketPath { try easy.set(CURLOPT_UNIX_SOCKET_PATH, path) }
        // With no proxy in the environment, saying so spares libcurl its
        // look there on every transfer; one named still applies (a confined
        // request refuses it in ``confine(_:_:)``).
        if !CurlGlobal.environmentNamesProxy { try easy.set(CURLOPT_NOPROXY, "*") }
        if let size = profile.receiveBufferSize {
            // A hint: libcurl refuses a new size while it still holds a buffer
            // (a reused handle whose last transfer ended early keeps its own),
            // and then reads into that one.
            _ = alertd_curl_setopt_long(easy.handle, CURLOPT_BUFFERSIZE, size)
        }
        if let idle = profile.idleTimeout {
            // Less than one byte a second for that long counts as a dead connection.
            try easy.set(CURLOPT_LOW_SPEED_LIMIT, 1)
            try easy.set(CURLOPT_LOW_SPEED_TIME, max(1, (idle.milliseconds + 999) / 1000))
        }
        _ = alertd_curl_setopt_write(easy.handle, Self.writeCallback)
        _ = alertd_curl_setopt_header(easy.handle, Self.headerCallback)
        _ = alertd_curl_setopt_prereq(easy.handle, Self.prereqCallback)
        switch profile.method {
        case "GET" where !profile.hasBody:
            try easy.set(CURLOPT_HTTPGET, 1)
        case "HEAD":
            try easy.set(CURLOPT_NOBODY, 1)
        case "POST":
            try easy.set(CURLOPT_POST, 1)
        default:
            try easy.set(CURLOPT_CUSTOMREQUEST, profile.method)
        }
    }

    /// Leaves `easy` pointing at nothing of this transfer's, for the next
    /// one: its error buffer and header list go with the transfer. A
    /// confined handle's callbacks point at it too, so that one is reset.
    /// libcurl's copy of the body is let go as well: a spare handle would
    /// hold it until its next request, up to a group notification's worth
    /// for each of the spares.
    package func release(_ easy: CurlEasy) {
        guard let profile = easy.profile, !profile.confined else {
            easy.reset()
            easy.profile = nil
            return
        }
        _ = alertd_curl_setopt_ptr(easy.handle, CURLOPT_ERRORBUFFER, nil)
        _ = alertd_curl_setopt_ptr(easy.handle, CURLOPT_HTTPHEADER, nil)
        // Setting the fields without a copy frees the copy; only where the
        // profile posts, since it also makes the handle's method POST.
        if profile.postsFields { _ = alertd_curl_setopt_ptr(easy.handle, CURLOPT_POSTFIELDS, nil) }
    }

    /// Makes a policy-checked request go exactly where, and as, it was checked.
    private func confine(_ easy: CurlEasy, _ me: UnsafeMutableRawPointer) throws(CurlError) {
        // Checked before the socket exists, so a refused address never even
        // sees a connection attempt...
        _ = alertd_curl_setopt_opensocket(easy.handle, Self.openSocketCallback)
        try easy.set(CURLOPT_OPENSOCKETDATA, pointer: me)
        // ...and again before every request (the prereq callback, set for
        // every request), because a connection taken from the pool was never
        // opened for this request and its check may have been made under
        // another policy.
        // Through a proxy the only address the policy would see is the
        // proxy's, so no proxy at all: "" also overrides http_proxy,
        // https_proxy and ALL_PROXY from the environment.
        try easy.set(CURLOPT_PROXY, "")
        try easy.set(CURLOPT_NOPROXY, "*")
        // The caller checked this path; libcurl must not resolve dot segments
        // into a different one.
        try easy.set(CURLOPT_PATH_AS_IS, 1)
        // The open-socket callback keeps the socket it makes, and the prereq
        // callback judges its peer once connected. A pooled connection was
        // made, and judged if at all, for another request.
        if request.unixSocketPath != nil, request.unixSocketPeerCheck != nil { try easy.set(CURLOPT_FRESH_CONNECT, 1) }
    }

    // MARK: Completion

    /// Delivers the outcome to the waiting caller, once. A streaming caller
    /// that has its head already sees the body end, or fail with the error.
    package func finish(_ result: Result<HTTPClientResponse, HTTPClientError>) {
        guard !finished else { return }
        finished = true
        easy = nil
        // Let go before it runs: it may hold what holds this transfer (a client).
        let completion = self.completion
        self.completion = nil
        completion?(result)
        if let bodyContinuation {
            if !headDelivered {
                headDelivered = true
                headContinuation?.resume(returning: result)
                headContinuation = nil
            }
            switch result {
            case .success: bodyContinuation.finish()
            case .failure(let error): bodyContinuation.finish(throwing: error)
            }
            self.bodyContinuation = nil
        }
    }

    /// Streaming: hands the status and headers over, once, before any body.
    private func deliverHead() {
        guard !headDelivered else { return }
        headDelivered = true
        let status = easy?.info(CURLINFO_RESPONSE_CODE) ?? 0
        headContinuation?.resume(returning: .success(HTTPClientResponse(status: status, headers: headers)))
        headContinuation = nil
    }

    /// Turns libcurl's verdict into a response or an error.
    package func outcome(_ code: CURLcode) -> Result<HTTPClientResponse, HTTPClientError> {
        let status = easy?.info(CURLINFO_RESPONSE_CODE) ?? 0
        if code == CURLE_OK || (code == CURLE_WRITE_ERROR && overflowed && request.oversizedResponse == .truncate && status > 0) {
            return .success(HTTPClientResponse(status: status, headers: headers, body: body, bodyTruncated: overflowed))
        }
        // Only a failure names the URL; redacting it was a cost on every transfer.
        let url = request.redactedURL
        let detail = String(cString: errorBuffer)
        let curl = CurlError(code, detail: detail)
        switch code {
        case CURLE_WRITE_ERROR where readerBehind:
            return .failure(.connectionLost(url: url, reason: "the server sent faster than it was read, \(HTTPClient.maxUnreadChunks) chunks ahead"))
        case CURLE_WRITE_ERROR where overflowed:
            return .failure(.responseTooLarge(url: url, limit: request.maxResponseBytes))
        case CURLE_ABORTED_BY_CALLBACK where resendRefused:
            return .failure(.connectionLost(url: url, reason: "the connection closed after the request went out, before any answer; it was not sent again"))
        case CURLE_ABORTED_BY_CALLBACK where peerRefusal != nil:
            return .failure(peerRefusal ?? .refusedByPolicy(url: url, reason: ""))
        case CURLE_COULDNT_CONNECT where policyRefusal != nil, CURLE_ABORTED_BY_CALLBACK where policyRefusal != nil:
            return .failure(.refusedByPolicy(url: url, reason: policyRefusal ?? ""))
        case CURLE_COULDNT_CONNECT:
            return .failure(.couldNotConnect(url: url, address: peerAddress(), reason: connectFailureReason()))
        case CURLE_OPERATION_TIMEDOUT:
            // A connection kept from an earlier transfer has no connect
            // time; one that got as far as sending the request was connected.
            let connected = (easy?.info(offset: CURLINFO_CONNECT_TIME_T) ?? 0) > 0
                || (easy?.info(offset: CURLINFO_PRETRANSFER_TIME_T) ?? 0) > 0
            let elapsedMicroseconds = easy?.info(offset: CURLINFO_TOTAL_TIME_T) ?? 0
            // A status line that came says the server answered: the rest was late.
            let phase: HTTPClientError.TimeoutPhase = status > 0 ? .body : .response
            if connected, let idle = request.idleTimeout, elapsedMicroseconds < request.timeout.milliseconds * 1000 {
                // Not the total limit, so the low-speed check: nothing arrived for `idle`.
                return .failure(.timedOut(url: url, phase: phase, after: idle))
            }
            return .failure(connected
                ? .timedOut(url: url, phase: phase, after: request.timeout)
                : .timedOut(url: url, phase: .connect, after: min(request.connectTimeout, request.timeout)))
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .failure(.dnsFailure(url: url, host: URLComponents(string: url)?.host ?? url))
        case CURLE_UNSUPPORTED_PROTOCOL where (easy?.info(offset: CURLINFO_CONNECT_TIME_T) ?? 0) > 0:
            // Connected, so the URL was fine: what came back was not HTTP
            // ("Received HTTP/0.9"), TLS on a plain port or a proxy's
            // garbage, perhaps for a moment. Taken for a bad URL, it ended
            // the delivery at its first attempt.
            return .failure(.connectionLost(url: url, reason: detail.isEmpty ? curl.message : detail))
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .failure(.badURL(url: url, reason: detail.isEmpty ? curl.message : detail))
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM,
             CURLE_WEIRD_SERVER_REPLY:
            return .failure(.connectionLost(url: url, reason: detail.isEmpty ? curl.message : detail))
        case _ where (code == CURLE_OUT_OF_MEMORY || code.rawValue == Self.curleTooLarge)
            && (status > 0 || (easy?.info(offset: CURLINFO_PRETRANSFER_TIME_T) ?? 0) > 0):
            // libcurl 7.88's word for a line of the answer's head past its
            // 100 KB, once the request is on its way, is "Out of memory": it
            // read as alertd's own.
            return .failure(.headerTooLarge(url: url, status: status > 0 ? status : nil))
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_SSL_SHUTDOWN_FAILED:
            return .failure(.tls(url: url, reason: detail.isEmpty ? curl.message : detail))
        default:
            return .failure(.other(url: url, curl: curl))
        }
    }

    /// `CURLE_TOO_LARGE`, libcurl 8.6's code for a header line past its limit (not in 7.88's headers).
    private static let curleTooLarge: UInt32 = 100

    /// `ip:port` when libcurl got that far, else what the URL names.
    private func peerAddress() -> String {
        if let path = request.unixSocketPath { return "unix socket \(path)" }
        if let ip = easy?.info(string: CURLINFO_PRIMARY_IP), !ip.isEmpty, let port = easy?.info(CURLINFO_PRIMARY_PORT), port > 0 {
            return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
        }
        guard let components = URLComponents(string: request.url), let host = components.host else { return request.redactedURL }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host):\(port)"
    }

    private func connectFailureReason() -> String {
        HTTPClientError.connectFailureReason(errno: Int32(easy?.info(CURLINFO_OS_ERRNO) ?? 0))
    }

    // MARK: libcurl callbacks, on the driver's thread

    private func receive(_ data: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        if let bodyContinuation {
            deliverHead()
            if case .dropped = bodyContinuation.yield(Data(bytes: UnsafeRawPointer(data), count: count)) {
                readerBehind = true
                return 0
            }
            return count
        }
        let room = request.maxResponseBytes - body.count
        guard count <= room else {
            if room > 0 { body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: room) }
            overflowed = true
            return 0  // anything but `count` makes libcurl stop with CURLE_WRITE_ERROR
        }
        body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }

    private func receiveHeader(_ line: UnsafeRawBufferPointer) {
        var end = line.count
        while end > 0, line[end - 1] == 10 || line[end - 1] == 13 { end -= 1 }
        guard end > 0 else {
            // The blank line ending a final (not 1xx) response's headers.
            if bodyContinuation != nil, let status = easy?.info(CURLINFO_RESPONSE_CODE), status >= 200 { deliverHead() }
            return
        }
        let bytes = UnsafeRawBufferPointer(rebasing: line[..<end])
        if bytes.starts(with: "HTTP/".utf8) {
            // A new status line: whatever came before was an interim 1xx response.
            headers = HTTPHeaders()
            headers.reserveCapacity(8)
            return
        }
        if bytes[0] == 32 || bytes[0] == 9 {
            // An obsolete folded continuation line belongs to the previous field.
            guard var last = headers.fields.last else { return }
            last.value += " " + Self.trimmedText(bytes)
            headers.replaceLast(with: last)
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        // Decoded from the contiguous bytes, not a slice of them: the slow generic path cost most of each line.
        headers.add(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<colon]), as: UTF8.self),
                    Self.trimmedText(UnsafeRawBufferPointer(rebasing: bytes[(colon + 1)...])))
    }

    /// The text of `bytes` without spaces and tabs at either end, as
    /// `trimmingSpaces()` gives, trimmed as bytes when both ends are ASCII.
    private static func trimmedText(_ bytes: UnsafeRawBufferPointer) -> String {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 32 || bytes[start] == 9 { start += 1 }
        while end > start, bytes[end - 1] == 32 || bytes[end - 1] == 9 { end -= 1 }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        // Other space separators (U+00A0, U+3000…) need the Unicode tables.
        guard start < end, bytes[start] < 0x80, bytes[end - 1] < 0x80 else { return text.trimmingSpaces() }
        return text
    }

    private func checkPolicy(_ target: HTTPConnectTarget) -> Bool {
        guard let policy = request.connectPolicy else { return true }
        switch policy.decide(target) {
        case .allow:
            return true
        case .refuse(let reason):
            policyRefusal = reason
            return false
        }
    }

    private static let writeCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        data, size, count, user in
        guard let data, let user else { return 0 }
        return Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue().receive(data, count: size * count)
    }

    private static let headerCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        data, size, count, user in
        guard let data, let user else { return 0 }
        Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
            .receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
        return size * count
    }

    /// Whether the server on the peer-checked request's connection may be
    /// sent the request (``HTTPClientRequest/unixSocketPeerCheck``).
    private func judgePeer(_ check: (UInt32?) -> String?) -> Bool {
        let path = request.unixSocketPath ?? ""
        // No socket of this transfer's making: nothing to judge, so nothing is sent.
        let refusal = peerCheckedSocket.map { check(StreamSocket.peerUserID(of: $0)) }
            ?? "was not connected to by this request, so it was sent nothing"
        guard let refusal else { return true }
        peerRefusal = .couldNotConnect(url: request.redactedURL, address: path, reason: "its server \(refusal)")
        return false
    }

    /// `CURLOPT_OPENSOCKETFUNCTION`: sees each resolved address before
    /// libcurl connects to it, and opens the socket only if the policy
    /// allows; a peer-checked request's socket it keeps for the prereq
    /// callback to judge once connected.
    private static let openSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t = {
        user, _, address in
        guard let user, let address else { return CURL_SOCKET_BAD }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
        var buffer = [CChar](repeating: 0, count: 64)
        let port = alertd_curl_sockaddr_peer(address, &buffer, socklen_t(buffer.count))
        if port >= 0 {
            let address = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let target = HTTPConnectTarget(remoteAddress: address, remotePort: Int(port))
            guard transfer.checkPolicy(target) else { return CURL_SOCKET_BAD }
        }
        let socket = alertd_curl_open_socket(address)
        if transfer.request.unixSocketPeerCheck != nil { transfer.peerCheckedSocket = socket }
        return socket
    }

    /// `CURLOPT_PREREQFUNCTION`: sees the connection each request is about to
    /// be sent on, new or reused, and stops the request if it went out
    /// before, or if the policy refuses its peer.
    private static let prereqCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int32, Int32) -> Int32 = {
        user, remote, local, remotePort, localPort in
        guard let user else { return CURL_PREREQFUNC_ABORT }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
        // When a kept connection closes after the request went out and before
        // any answer, libcurl sends it again on another, up to five times:
        // whether the server acted on it is unknown, and a receiver that read
        // each request and hung up got a webhook, or a confirm handler's
        // call, five times in one attempt, none of them counted. One send is
        // one attempt; a failed one is for the caller to try again, counted.
        transfer.sends += 1
        guard transfer.sends == 1 else {
            transfer.resendRefused = true
            return CURL_PREREQFUNC_ABORT
        }
        transfer.hostSlot?.connectedOne()
        // A Unix socket is the caller's own choice of path, as in the open-socket
        // callback; who serves it is judged on the connection, here, before a byte goes.
        if transfer.request.unixSocketPath != nil {
            guard let check = transfer.request.unixSocketPeerCheck else { return CURL_PREREQFUNC_OK }
            return transfer.judgePeer(check) ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT
        }
        let target = HTTPConnectTarget(
            remoteAddress: remote.map { String(cString: $0) } ?? "", remotePort: Int(remotePort),
            localAddress: local.map { String(cString: $0) } ?? "", localPort: Int(localPort))
        return transfer.checkPolicy(target) ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT
    }
}
