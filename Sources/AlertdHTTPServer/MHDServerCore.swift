import CMicroHTTPD
import FoundationEssentials
import Synchronization
import AlertdHTTP
import AlertdPOSIX

#if canImport(Glibc)
import Glibc
#endif

/// The part of the server libmicrohttpd calls into: its callbacks, the
/// request life cycle (read body, suspend, run the handler in a task, resume,
/// queue the response), and the register of suspended work that `stop()`
/// must wake before the daemon may be stopped.
package final class MHDServerCore: Sendable {
    private struct Flight {
        package var requests: [ObjectIdentifier: RequestContext] = [:]
        package var streams: [ObjectIdentifier: ResponseStream] = [:]
        /// The TCP client of each stream in `streams` (none for a Unix peer), as ``streamClients`` counts it.
        package var streamPeers: [ObjectIdentifier: ClientKeys] = [:]
        /// Requests whose body is still coming: a stop waits for them as
        /// for those being handled (it closed them unanswered at once).
        package var receiving: Set<ObjectIdentifier> = []
        /// Set when stop() begins: responses close their connections and new streams end at once.
        package var stopping = false
        /// Set when stop() stops waiting: no connection may be suspended any more.
        package var refusing = false
    }

    package let handler: HTTPServer.Handler
    /// Connections libmicrohttpd has closed since the start, for the
    /// ``ConnectionAcceptor``'s count of those it handed over.
    package let connectionsClosed = Atomic<Int>(0)
    /// Open TCP connections per client, for the acceptor's per-client limit.
    let clientConnections: ClientConnections
    /// Open streams per TCP client (``admit(_:from:)``); taken and given back under `flight`'s lock.
    private let streamClients: ClientConnections
    package let trimmer: HeapTrimmer
    package let answerBudget: MemoryBudget
    package let bodyBudget: MemoryBudget
    package let screen: HTTPServer.Screen?
    package let errorAnswer: HTTPServer.ErrorAnswer?
    package let maxBodyBytes: Int
    package let listener: HTTPRequest.Listener
    package let maxStreamBufferBytes: Int
    /// A stream's connection's idle timeout (``HTTPServerConfiguration/streamIdleTimeout``).
    package let streamIdleTimeout: Duration
    /// Streamed responses open at once, in all and per TCP client (``admit(_:from:)``).
    /// A stream is exempt from the idle and request timeouts (it waits for
    /// events by design), so without these a client holding a read token
    /// could fill every connection slot with streams it never reads.
    package let maxStreams: Int
    package let maxStreamsPerClient: Int
    /// Times each connection's request; see ``ConnectionWatch``.
    package let watch: ConnectionWatch
    private let flight = Mutex(Flight())

    /// How long the rest of an oversized chunked body is read (and dropped)
    /// so its sender gets the 413; a body still coming after this is cut off.
    package static let overflowDrainTime: Duration = .seconds(10)
    /// The largest declared body past the limit that is read and dropped
    /// before the 413 (the largest `limits.max_body_bytes`); a larger one
    /// is answered at once.
    package static let drainedBodyBytes = 64 << 20

    /// Whether the request asks for `100 Continue` before it sends its body.
    private static func waitsForContinue(_ connection: OpaquePointer) -> Bool {
        guard let expect = MHD_lookup_connection_value(connection, .HEADER_KIND, "Expect") else { return false }
        return strcasecmp(expect, "100-continue") == 0
    }

    package init(handler: @escaping HTTPServer.Handler, screen: HTTPServer.Screen? = nil, errorAnswer: HTTPServer.ErrorAnswer? = nil,
                 maxBodyBytes: Int, listener: HTTPRequest.Listener,
                 maxStreamBufferBytes: Int = 128 * 1024, streamIdleTimeout: Duration = .seconds(60),
                 maxStreams: Int = 512, maxStreamsPerClient: Int = 16, perClientConnectionLimit: Int = 128, connectionLimit: Int = 1024,
                 watch: ConnectionWatch = ConnectionWatch(timeout: .seconds(30), timeoutUnderLoad: .seconds(2), loadThreshold: 768),
                 trimmer: HeapTrimmer = .shared, answerBudget: MemoryBudget = .answers, bodyBudget: MemoryBudget = .forBodies()) {
        self.handler = handler
        self.trimmer = trimmer
        self.answerBudget = answerBudget
        self.bodyBudget = bodyBudget
        self.screen = screen
        self.errorAnswer = errorAnswer
        self.maxBodyBytes = maxBodyBytes
        self.listener = listener
        self.maxStreamBufferBytes = maxStreamBufferBytes
        self.streamIdleTimeout = streamIdleTimeout
        self.maxStreams = max(1, maxStreams)
        self.maxStreamsPerClient = max(1, maxStreamsPerClient)
        clientConnections = ClientConnections(perAddress: perClientConnectionLimit, perNetwork: connectionLimit / 2)
        streamClients = ClientConnections(perAddress: self.maxStreamsPerClient, perNetwork: self.maxStreams / 2)
        self.watch = watch
    }

    /// About what an exchange's own objects (its request, headers, task,
    /// answer) take from the heap besides its bodies, for the trimmer.
    package static let exchangeObjects = 4 << 10

    /// How long a handler runs before the sweep looks whether its client is still there.
    package static let abandonedAfter: Duration = .seconds(1)

    /// Cancels the handlers whose clients have gone (``RequestContext/cancelIfClientGone(after:at:)``).
    package func cancelAbandonedHandlers() {
        let handled = flight.withLock { Array($0.requests.values) }
        let now = ContinuousClock.now
        for context in handled { context.cancelIfClientGone(after: Self.abandonedAfter, at: now) }
    }

    // MARK: Stopping

    /// Requests being received or handled, and streams, whose response has
    /// not been sent in full.
    package var inFlight: Int { flight.withLock { $0.requests.count + $0.streams.count + $0.receiving.count } }

    /// Whether stop() has begun.
    package var isStopping: Bool { flight.withLock { $0.stopping } }

    /// First step of a graceful stop: ends every open stream.
    package func beginStopping() {
        let streams = flight.withLock { f in
            f.stopping = true
            return Array(f.streams.values)
        }
        for stream in streams { stream.finish() }
    }

    /// Last step: answers what is still running with 503 and resumes every
    /// suspended connection, so the daemon can be stopped.
    package func abortAll() {
        let (requests, streams) = flight.withLock { f in
            f.stopping = true
            f.refusing = true
            // A body that comes in full now gets the 503 (`refusing`); the
            // rest is closed with the server, not waited for again.
            f.receiving.removeAll()
            return (Array(f.requests.values), Array(f.streams.values))
        }
        for request in requests {
            request.abort(with: errorResponse(request, 503, "shutting_down", "The server is shutting down; retry against the new instance."))
        }
        for stream in streams { stream.finish() }
    }

    // MARK: The request life cycle

    package func handle(
        _ context: RequestContext, connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>,
        version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        switch context.phase {
        case .headers:
            context.phase = .body
            context.method = String(cString: method)
            context.isHead = strcmp(method, "HEAD") == 0
            if let problem = Self.targetProblem(context, url: url, version: version) {
                return queue(errorResponse(context, 400, "invalid_target", problem), context: context, connection: connection)
            }
            let framing = RequestFraming(connection)
            if let problem = framing.problem {
                return queue(errorResponse(context, problem.status, problem.code, problem.message), context: context, connection: connection)
            }
            // RFC 9112 §3.2 has a server refuse an HTTP/1.1 request that names
            // no host. On TCP, where a proxy may stand in front and read it
            // otherwise; a script on the Unix socket is let be.
            if listener == .tcp, framing.hosts == 0, let version, strcmp(version, "HTTP/1.1") == 0 {
                return queue(errorResponse(context, 400, "missing_host", "An HTTP/1.1 request must name the server it is for in a Host header; send `Host: <address>:<port>`."),
                             context: context, connection: connection)
            }
            if let declared = framing.contentLength.flatMap({ UInt64($0) }), declared > UInt64(maxBodyBytes) {
                // Answered before the body is read, libmicrohttpd skips it and
                // closes the connection: right for a client waiting for `100
                // Continue`, but one already sending got a reset that took the
                // 413 with it (Python's client; Go's, as Prometheus sends). Its
                // body is read and dropped first, as a chunked one's is.
                if declared > UInt64(Self.drainedBodyBytes) || Self.waitsForContinue(connection) {
                    return queue(bodyTooLarge(context), context: context, connection: connection)
                }
                context.phase = .overflow(since: .now, busy: false)
                flight.withLock { _ = $0.receiving.insert(ObjectIdentifier(context)) }
                return .YES
            }
            let bodyComing = framing.hasTransferEncoding || (framing.contentLength.map { $0 != "0" } ?? false)
            if bodyComing, let screen, let answer = screen({ makeRequest(context, connection: connection, method: method) }) {
                return queue(answer, context: context, connection: connection)
            }
            if bodyComing { flight.withLock { _ = $0.receiving.insert(ObjectIdentifier(context)) } }
            return .YES

        case .body:
            if uploadSize.pointee > 0 {
                let n = uploadSize.pointee
                uploadSize.pointee = 0
                let tooLarge = context.body.count + n > maxBodyBytes
                if tooLarge || !bodyBudget.reserve(n) {
                    context.bodyBytes = context.body.count
                    context.body = Data()
                    bodyBudget.release(context.bodyReserved)
                    context.bodyReserved = 0
                    context.phase = .overflow(since: .now, busy: !tooLarge)
                } else if let uploadData {
                    context.bodyReserved += n
                    context.body.append(UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self), count: n)
                }
                return .YES
            }
            return startHandler(context, connection: connection, method: method)

        case .overflow(let since, let busy):
            if uploadSize.pointee > 0 {
                uploadSize.pointee = 0
                // libmicrohttpd takes an answer only once the body is in, and a
                // client still sending would not read one before; so the rest is
                // read and dropped. A body that keeps coming is not worth more.
                guard ContinuousClock.now - since < Self.overflowDrainTime else { return .NO }
                return .YES
            }
            if busy {
                let message = Self.budgetSpent(bodyBudget, held: "Request bodies still coming in", advice: "or send smaller batches")
                return queue(errorResponse(context, 503, "server_busy", message), context: context, connection: connection)
            }
            return queue(bodyTooLarge(context), context: context, connection: connection)

        case .handling:
            // The request stays registered until libmicrohttpd reports it
            // complete, so stop() also waits for the response to be sent.
            guard let response = context.takeResponse() else { return .NO }
            return queue(response, context: context, connection: connection)

        case .answered:
            return .NO
        }
    }

    private func startHandler(_ context: RequestContext, connection: OpaquePointer, method: UnsafePointer<CChar>) -> MHD_Result {
        let request = makeRequest(context, connection: connection, method: method)
        context.bodyBytes = context.body.count
        context.body = Data()
        let accepted = flight.withLock { f in
            f.receiving.remove(ObjectIdentifier(context))
            guard !f.refusing else { return false }
            f.requests[ObjectIdentifier(context)] = context
            return true
        }
        guard accepted, context.suspend() else {
            flight.withLock { _ = $0.requests.removeValue(forKey: ObjectIdentifier(context)) }
            return queue(errorResponse(context, 503, "shutting_down", "The server is shutting down; retry against the new instance."),
                         context: context, connection: connection)
        }
        context.phase = .handling
        watch.requestStarted(connection)
        context.run(handler, request)
        return .YES
    }

    private func makeRequest(_ context: RequestContext, connection: OpaquePointer, method: UnsafePointer<CChar>) -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.reserveCapacity(16)
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
                let headers = cls!.assumingMemoryBound(to: HTTPHeaders.self)
                headers.pointee.add(
                    MHDServerCore.string(key, count: keySize),
                    value.map { MHDServerCore.string($0, count: valueSize) } ?? "")
                return .YES
            }, pointer)
        }
        let addresses = kept(connection)
        return HTTPRequest(
            method: String(cString: method), target: context.target, headers: headers, body: context.body,
            peer: addresses.peer, listener: listener, localAddress: addresses.local)
    }

    /// The connection's ends as found when it opened (its socket context),
    /// or found now for one that has none.
    private func kept(_ connection: OpaquePointer) -> ConnectionAddresses {
        alertd_mhd_socket_context(connection).map { Unmanaged<ConnectionAddresses>.fromOpaque($0).takeUnretainedValue() }
            ?? addresses(of: connection)
    }

    /// Both ends of a connection, as the kernel names them.
    func addresses(of connection: OpaquePointer) -> ConnectionAddresses {
        ConnectionAddresses(peer: peer(of: connection), local: localAddress(of: connection))
    }

    /// The address the TCP client connected to, as `getsockname` tells it;
    /// an IPv4 client of a dual-stack socket is written as plain IPv4.
    private func localAddress(of connection: OpaquePointer) -> String? {
        guard listener == .tcp else { return nil }
        let fd = alertd_mhd_connection_fd(connection)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { fd >= 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard named else { return nil }
        let host = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Self.numericHost($0, length: length) }
        }
        guard let host else { return nil }
        return host.hasPrefix("::ffff:") && host.contains(".") ? String(host.dropFirst(7)) : host
    }

    /// What the per-client limits count a just accepted peer as, the same
    /// as its ``ConnectionAddresses/client`` once it opens; nil for a
    /// Unix-socket peer.
    static func client(of address: UnsafePointer<sockaddr>, length: socklen_t) -> ClientKeys? {
        let family = Int32(address.pointee.sa_family)
        guard family == AF_INET || family == AF_INET6, let host = numericHost(address, length: length) else { return nil }
        return ClientKeys(peer: host)
    }

    private static func numericHost(_ address: UnsafePointer<sockaddr>, length: socklen_t) -> String? {
        // This runs twice for every TCP connection. IPv4 is written here:
        // getnameinfo formats it with sprintf, 1.8 k instructions a time.
        if address.pointee.sa_family == sa_family_t(AF_INET), length >= socklen_t(MemoryLayout<sockaddr_in>.size) {
            let octets = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            return withUnsafeBytes(of: octets) { octets in
                // Digits written by hand: interpolating four numbers cost as much as getnameinfo.
                String(unsafeUninitializedCapacity: 15) { out in
                    var n = 0
                    for (i, octet) in octets.enumerated() {
                        if i > 0 { out[n] = UInt8(ascii: "."); n += 1 }
                        if octet >= 100 { out[n] = UInt8(ascii: "0") + octet / 100; n += 1 }
                        if octet >= 10 { out[n] = UInt8(ascii: "0") + octet / 10 % 10; n += 1 }
                        out[n] = UInt8(ascii: "0") + octet % 10
                        n += 1
                    }
                    return n
                }
            }
        }
        // Anything else on the stack: a zeroed array of NI_MAXHOST each time was 2 k instructions.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(NI_MAXHOST)) { host -> String? in
            guard let base = host.baseAddress, getnameinfo(address, length, base, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
                return nil
            }
            return String(decoding: UnsafeRawBufferPointer(start: base, count: strlen(base)), as: UTF8.self)
        }
    }

    private func peer(of connection: OpaquePointer) -> HTTPRequest.Peer {
        if listener == .unixSocket {
            var uid: UInt32 = 0, gid: UInt32 = 0, pid: Int32 = 0
            let fd = alertd_mhd_connection_fd(connection)
            // A Unix peer the kernel cannot vouch for gets nobody's identity, never root's.
            guard fd >= 0, alertd_peer_credentials(fd, &uid, &gid, &pid) == 0 else {
                return .unix(uid: UInt32.max, gid: UInt32.max, pid: 0)
            }
            return .unix(uid: uid, gid: gid, pid: pid)
        }
        guard let address = alertd_mhd_client_address(connection) else { return .tcp(address: "") }
        let length = socklen_t(address.pointee.sa_family == sa_family_t(AF_INET6)
            ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        return .tcp(address: Self.numericHost(address, length: length) ?? "")
    }

    // MARK: Responses

    private func queue(_ response: HTTPResponse, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        context.phase = .answered
        let mhdResponse: OpaquePointer?
        var body = response.body
        // A stream's answer to HEAD ended with a chunked body's last chunk,
        // which a client keeping the connection read as the next answer's start.
        if context.isHead, case .stream = body { body = .bytes(Data()) }
        switch body {
        case .bytes(let data):
            if data.count >= MemoryBudget.countedAnswer {
                guard answerBudget.reserve(data.count) else {
                    let message = Self.budgetSpent(answerBudget, held: "Answers not yet read by their clients",
                                                   advice: "read answers as they come, or ask for smaller pages (`limit`)")
                    return queue(errorResponse(context, 503, "server_busy", message), context: context, connection: connection)
                }
                context.answerReserved = data.count
            }
            context.answerBytes = data.count
            mhdResponse = data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .stream(let source):
            let stream = ResponseStream(connection: connection, core: self, maxBuffered: maxStreamBufferBytes)
            guard admit(stream, from: connection) else {
                return queue(errorResponse(context, 503, "too_many_streams",
                                                "Too many event streams are open, from this address or in all; close one, or retry in a minute."),
                             context: context, connection: connection)
            }
            // The kernel's send buffer grows to megabytes for a client that does not
            // read; a stream's own buffer is its bound, so keep the kernel's small.
            var sendBuffer = Int32(clamping: maxStreamBufferBytes / 2)
            _ = setsockopt(alertd_mhd_connection_fd(connection), SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
            alertd_mhd_set_connection_timeout(connection, UInt32(clamping: max(1, streamIdleTimeout.components.seconds)))
            let cls = Unmanaged.passRetained(stream).toOpaque()
            mhdResponse = MHD_create_response_from_callback(UInt64.max, 16 * 1024, { cls, _, buffer, max in
                let stream = Unmanaged<ResponseStream>.fromOpaque(cls!).takeUnretainedValue()
                return stream.read(into: buffer!, max: max)
            }, cls, { cls in
                let stream = Unmanaged<ResponseStream>.fromOpaque(cls!).takeRetainedValue()
                stream.close()
            })
            if mhdResponse != nil {
                if flight.withLock({ $0.stopping }) { stream.finish() } else { stream.start(source) }
            } else {
                forget(stream)
            }
        }
        guard let mhdResponse else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        for field in response.headers {
            // libmicrohttpd frames the body itself and refuses these; a handler setting them is harmless.
            if HTTPHeaders.sameName(field.name, "Content-Length") || HTTPHeaders.sameName(field.name, "Transfer-Encoding") { continue }
            // Through `withCString`: passing a String as the C argument copied
            // a short one (a name like Content-Type) to the heap first.
            _ = field.name.withCString { name in field.value.withCString { MHD_add_response_header(mhdResponse, name, $0) } }
        }
        // Answers carry alerts, tokens' scopes and signed links: no cache keeps
        // them and no browser reads a JSON answer as a page, unless the
        // handler said otherwise (the event stream's `no-cache`).
        if !response.headers.contains("Cache-Control") {
            _ = MHD_add_response_header(mhdResponse, "Cache-Control", "no-store")
        }
        if !response.headers.contains("X-Content-Type-Options") {
            _ = MHD_add_response_header(mhdResponse, "X-Content-Type-Options", "nosniff")
        }
        if flight.withLock({ $0.stopping }) {
            _ = MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        let status = (100...599).contains(response.status) ? UInt32(response.status) : 500
        return MHD_queue_response(connection, status, mhdResponse)
    }

    /// Registers `stream` if it is within ``maxStreams`` and, for a TCP
    /// client, ``maxStreamsPerClient`` for its address and half of
    /// ``maxStreams`` for an IPv6 address's /64 (by the address alone, one
    /// host held all the streams from addresses of its own); false when it
    /// is not.
    private func admit(_ stream: ResponseStream, from connection: OpaquePointer) -> Bool {
        let client = kept(connection).client
        let key = ObjectIdentifier(stream)
        return flight.withLock { f in
            func admitted() -> Bool {
                guard f.streams.count < maxStreams else { return false }
                if let client {
                    guard streamClients.take(client) else { return false }
                    f.streamPeers[key] = client
                }
                f.streams[key] = stream
                return true
            }
            if admitted() { return true }
            // Streams whose clients left while they waited for events still
            // hold their slots until libmicrohttpd's next write: free those.
            for (gone, s) in f.streams where s.clientGone() {
                s.drop()
                Self.remove(gone, from: &f, counted: streamClients)
            }
            return admitted()
        }
    }

    /// Takes the stream `key` out of `flight`, and its client's count.
    private static func remove(_ key: ObjectIdentifier, from f: inout Flight, counted streamClients: ClientConnections) {
        f.streams.removeValue(forKey: key)
        if let client = f.streamPeers.removeValue(forKey: key) { streamClients.giveBack(client) }
    }

    package func forget(_ stream: ResponseStream) {
        flight.withLock { Self.remove(ObjectIdentifier(stream), from: &$0, counted: streamClients) }
    }

    /// Why the request target cannot be served as sent, or nil. libmicrohttpd
    /// hands the target over as a C string, so a raw NUL would cut it short
    /// (`/v1/alerts/\0x` read as `/v1/alerts/`); in libmicrohttpd 0.9.75 the
    /// version string starts right after the target and its space, so the
    /// two pointers give the target's real length. Raw control bytes are
    /// refused too: no client that encodes its target sends them.
    private static func targetProblem(_ context: RequestContext, url: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?) -> String? {
        let controls = context.target.utf8.contains { $0 < 0x20 || $0 == 0x7F }
        var cut = false
        if let url, let version, version.pointee != 0 {
            let sent = url.distance(to: version) - 1
            cut = sent > context.targetLength
        }
        guard controls || cut else { return nil }
        return "The request target contains a raw NUL or control byte; percent-encode it (e.g. %00) or leave it out."
    }

    /// Closes the connection, as API.md says: libmicrohttpd kept one whose
    /// chunked body it had read to the end.
    private func bodyTooLarge(_ context: RequestContext) -> HTTPResponse {
        var answer = errorResponse(context, 413, "body_too_large", "The request body is larger than the \(maxBodyBytes)-byte limit. Send less data.")
        answer.headers.set("Connection", "close")
        return answer
    }

    private static func budgetSpent(_ budget: MemoryBudget, held: String, advice: String) -> String {
        "\(held) hold \(budget.limit >> 20) MB, all this server keeps for them; retry in a few seconds, \(advice)."
    }

    /// The server's own answer to `context`'s request, in its route's shape (``HTTPServer/ErrorAnswer``).
    package func errorResponse(_ context: RequestContext, _ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        errorAnswer?(context.method, context.target, status, code, message) ?? .error(status: status, code: code, message: message)
    }

    private static func string(_ pointer: UnsafePointer<CChar>?, count: Int) -> String {
        guard let pointer else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}

extension MHDServerCore {
    /// Drops a request from the register, whatever state it ended in.
    package func forget(_ context: RequestContext) {
        flight.withLock { f in
            f.requests.removeValue(forKey: ObjectIdentifier(context))
            f.receiving.remove(ObjectIdentifier(context))
        }
    }
}
