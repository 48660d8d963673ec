import CCurl
import Dispatch
import AlertdPOSIX
import FoundationEssentials
import Synchronization
import AlertModel

#if canImport(Glibc)
import Glibc
#endif

/// Hands mails to an SMTP server with libcurl: `EHLO`, STARTTLS as asked,
/// `AUTH`, `MAIL FROM`, one `RCPT TO` per recipient, `DATA`.
///
/// Each send runs `curl_easy_perform` on a thread of its own: mail is rare
/// next to HTTP, a blocking perform is the simplest correct driver for it,
/// and a thread keeps the wait off the cooperative pool. Connections are not
/// reused between mails.
public enum SMTPClient {
    /// Sends one mail and waits for the server to accept it. Cancelling the
    /// calling task aborts the exchange with ``SMTPClientError/cancelled(url:)``.
    public static func send(_ request: SMTPRequest) async throws(SMTPClientError) {
        let transfer = SMTPTransfer(request)
        // libcurl holds `CURLOPT_TIMEOUT_MS` to the exchange, but not to the
        // QUIT it sends as it closes the connection, which waits on its own
        // 120 s for a server that went silent (after the message, say), and
        // a blocking perform hears a cancelled caller only between its
        // steps: at the deadline, or once cancelled, its sockets are shut.
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(max(1, request.timeout.milliseconds)))) {
            transfer.abort()
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, SMTPClientError>, Never>) in
                DetachedThread.start(name: "alertd-smtp") { continuation.resume(returning: transfer.perform()) }
            }
        } onCancel: {
            transfer.cancelRequested.store(true, ordering: .relaxed)
            transfer.abort()
        }
        try result.get()
    }
}

/// One mail on its way: the request, and the flag a cancelled caller sets.
/// What changes while it is sent (the handle, the read position) lives in
/// `perform`, on the sending thread.
final class SMTPTransfer: Sendable {
    let request: SMTPRequest
    let cancelRequested = Atomic(false)

    init(_ request: SMTPRequest) {
        self.request = request
    }

    private var redactedURL: String { URLRedaction.redactingUserInfo(request.url) }

    func perform() -> Result<Void, SMTPClientError> {
        CurlGlobal.initialize()
        guard let easy = CurlEasy() else { return .failure(.other(url: redactedURL, curl: CurlError(CURLE_OUT_OF_MEMORY))) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        var recipients: UnsafeMutablePointer<curl_slist>?
        defer {
            if let recipients { alertd_curl_slist_free_all(recipients) }
            errorBuffer.deallocate()
        }
        for address in request.recipients { recipients = alertd_curl_slist_append(recipients, "<\(address)>") }
        let upload = SMTPUpload(message: request.message, loginConfigured: request.username != nil || request.password != nil,
                                cancelRequested: { [self] in cancelRequested.load(ordering: .relaxed) })
        let me = Unmanaged.passUnretained(upload).toOpaque()
        do {
            try easy.set(CURLOPT_URL, request.url)
            try easy.set(CURLOPT_PROTOCOLS_STR, "smtp,smtps")
            try easy.set(CURLOPT_NOSIGNAL, 1)
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, max(1, request.connectTimeout.milliseconds))
            try easy.set(CURLOPT_TIMEOUT_MS, max(1, request.timeout.milliseconds))
            try easy.set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
            try easy.set(CURLOPT_USE_SSL, Int(Self.useSSL(request.tls).rawValue))
            if let caFile = request.caFile { try easy.set(CURLOPT_CAINFO, caFile) }
            try easy.set(CURLOPT_MAIL_FROM, "<\(request.from)>")
            try easy.set(CURLOPT_MAIL_RCPT, pointer: recipients)
            if let username = request.username { try easy.set(CURLOPT_USERNAME, username) }
            if let password = request.password { try easy.set(CURLOPT_PASSWORD, password) }
            try easy.set(CURLOPT_UPLOAD, 1)
            try easy.set(CURLOPT_INFILESIZE_LARGE, offset: request.message.count)
            _ = alertd_curl_setopt_read(easy.handle, SMTPUpload.readCallback)
            try easy.set(CURLOPT_READDATA, pointer: me)
            _ = alertd_curl_setopt_opensocket(easy.handle, Self.openSocketCallback)
            _ = alertd_curl_setopt_closesocket(easy.handle, Self.closeSocketCallback)
            let transfer = Unmanaged.passUnretained(self).toOpaque()
            try easy.set(CURLOPT_OPENSOCKETDATA, pointer: transfer)
            try easy.set(CURLOPT_CLOSESOCKETDATA, pointer: transfer)
            try easy.set(CURLOPT_NOPROGRESS, 0)
            _ = alertd_curl_setopt_xferinfo(easy.handle, SMTPUpload.progressCallback)
            try easy.set(CURLOPT_XFERINFODATA, pointer: me)
            // The server's replies reach us only through the debug callback:
            // libcurl's errors give a refusal's code, not its words.
            _ = alertd_curl_setopt_debug(easy.handle, SMTPUpload.debugCallback)
            try easy.set(CURLOPT_DEBUGDATA, pointer: me)
            try easy.set(CURLOPT_VERBOSE, 1)
        } catch {
            return .failure(.other(url: redactedURL, curl: error))
        }
        let code = withExtendedLifetime(upload) { alertd_curl_easy_perform(easy.handle) }
        if upload.withheldForNoLogin { return .failure(.loginNotOffered(url: redactedURL)) }
        return outcome(code, easy: easy, detail: String(cString: errorBuffer), serverSaid: upload.lastReply)
    }

    /// The sockets libcurl has open for this mail; nil once ``abort()``
    /// shut them, and any opened after.
    private let sockets = Mutex<Set<Int32>?>([])

    private var aborted: Bool { sockets.withLock { $0 == nil } }

    /// Shuts the mail's sockets: whatever libcurl waits for on them ends
    /// at once, in error. Closing them stays libcurl's
    /// (``closeSocketCallback``), so a number it has let go, and the
    /// system may have given to another file since, is never touched.
    func abort() {
        sockets.withLock { open in
            for fd in open ?? [] { shutdown(fd, Int32(SHUT_RDWR)) }
            open = nil
        }
    }

    /// `CURLOPT_OPENSOCKETFUNCTION`: opens the socket and keeps its number for ``abort()``.
    private static let openSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t = {
        user, _, address in
        guard let user, let address else { return CURL_SOCKET_BAD }
        let transfer = Unmanaged<SMTPTransfer>.fromOpaque(user).takeUnretainedValue()
        let fd = alertd_curl_open_socket(address)
        guard fd >= 0 else { return fd }
        transfer.sockets.withLock { open in
            if open == nil { shutdown(fd, Int32(SHUT_RDWR)) } else { open?.insert(fd) }
        }
        return fd
    }

    /// `CURLOPT_CLOSESOCKETFUNCTION`: closes the socket under the lock ``abort()`` takes.
    private static let closeSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t) -> Int32 = { user, fd in
        guard let user else { return close(fd) }
        let transfer = Unmanaged<SMTPTransfer>.fromOpaque(user).takeUnretainedValue()
        return transfer.sockets.withLock { open in
            open?.remove(fd)
            return close(fd)
        }
    }

    private static func useSSL(_ tls: SMTPRequest.TLS) -> curl_usessl {
        switch tls {
        case .none: CURLUSESSL_NONE
        case .optional: CURLUSESSL_TRY
        case .required: CURLUSESSL_ALL
        }
    }

    /// What went wrong, in the server's own words where it said some
    /// (`serverSaid`, its last reply: `552 5.3.4 Message size exceeds fixed
    /// limit`, where libcurl says "Weird server reply").
    private func outcome(_ code: CURLcode, easy: CurlEasy, detail: String, serverSaid: String?) -> Result<Void, SMTPClientError> {
        if code == CURLE_OK { return .success(()) }
        let url = redactedURL
        let curl = CurlError(code, detail: detail)
        let text = detail.isEmpty ? curl.message : detail
        // The last reply code the server sent, when it got that far.
        let reply = easy.info(CURLINFO_RESPONSE_CODE) ?? 0
        // Its words after the code (`5.3.4 Message size exceeds fixed limit`), if that reply is the one.
        let said = serverSaid.flatMap { line -> String? in
            // A refusal's: after a 2xx (an EHLO's list) it would be no reason at all.
            guard reply >= 400, line.hasPrefix(String(reply)) else { return nil }
            let words = line.dropFirst(String(reply).count + 1)
            return words.isEmpty ? nil : String(words)
        }
        switch code {
        case _ where cancelRequested.load(ordering: .relaxed):
            return .failure(.cancelled(url: url))
        // Past the deadline, what a shut socket made of the wait is the timeout.
        case _ where aborted:
            return .failure(.timedOut(url: url, after: request.timeout))
        // Ended well before `timeout`, it is `connect_timeout` that ran out
        // (connecting, the greeting, TLS, the login).
        case CURLE_OPERATION_TIMEDOUT:
            let took = Duration.microseconds(easy.info(offset: CURLINFO_TOTAL_TIME_T) ?? 0)
            let early = request.connectTimeout < request.timeout && took < request.timeout - .milliseconds(250)
            return .failure(.timedOut(url: url, after: early ? request.connectTimeout : request.timeout))
        case CURLE_COULDNT_CONNECT:
            return .failure(.couldNotConnect(url: url, reason: text))
        case CURLE_COULDNT_RESOLVE_HOST:
            return .failure(.dnsFailure(url: url, host: URLComponents(string: request.url)?.host ?? url))
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .failure(.badURL(url: url, reason: text))
        case CURLE_USE_SSL_FAILED:
            return .failure(.startTLSUnavailable(url: url))
        // RFC 4954: 454 is the server's trouble, for now (a directory down).
        case CURLE_LOGIN_DENIED where (400..<500).contains(reply):
            return .failure(.loginRefusedForNow(url: url, code: reply, reason: said ?? text))
        case CURLE_LOGIN_DENIED:
            return .failure(.authenticationFailed(url: url, reason: said ?? text))
        case CURLE_PEER_FAILED_VERIFICATION:
            return .failure(.untrustedCertificate(url: url, reason: text))
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_SSL_CLIENTCERT, CURLE_SSL_SHUTDOWN_FAILED:
            return .failure(.tls(url: url, reason: text))
        // libcurl's own words for a refused RCPT TO, the one way to tell it
        // from a refused MAIL FROM or DATA.
        case CURLE_SEND_ERROR where reply >= 400 && detail.hasPrefix("RCPT failed"):
            return .failure(.recipientRefused(url: url, code: reply))
        case _ where reply >= 400:
            return .failure(.rejected(url: url, code: reply, reason: said ?? text))
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING:
            return .failure(.connectionLost(url: url, reason: Self.whereLost(code, detail: detail, lastReply: serverSaid, easy: easy, of: request.message.count)))
        case CURLE_PARTIAL_FILE, CURLE_WEIRD_SERVER_REPLY:
            return .failure(.connectionLost(url: url, reason: text))
        default:
            return .failure(.other(url: url, curl: curl))
        }
    }

    /// Where in the exchange a broken connection broke, in place of
    /// libcurl's words for it ("response reading failed (errno: 115)",
    /// a stale errno): whether the message may have arrived is what an
    /// operator looking into a duplicate, or a missing mail, needs to know.
    private static func whereLost(_ code: CURLcode, detail: String, lastReply: String?, easy: CurlEasy, of size: Int) -> String {
        // libcurl's own words where they say more than an errno ("Connection reset by peer", a TLS read's end).
        let what = detail.isEmpty || detail.contains("errno") ? "the connection broke" : "the connection broke (\(detail))"
        guard let lastReply else { return "\(what) before the server's greeting" }
        guard lastReply.hasPrefix("354") else { return "\(what) after the server's reply \"\(lastReply)\"" }
        let sent = easy.info(offset: CURLINFO_SIZE_UPLOAD_T) ?? 0
        return sent >= size
            ? "\(what) after the whole message, before the server answered it (the mail may have arrived; a retry may send it again)"
            : "\(what) while the message was being sent"
    }
}

/// The message as libcurl reads it, and whether to stop: handed to the
/// callbacks, which run on the sending thread only.
private final class SMTPUpload {
    let message: Data
    let cancelRequested: () -> Bool
    /// A user name or password is set: the mail goes only over a login.
    let loginConfigured: Bool
    private var offset = 0

    init(message: Data, loginConfigured: Bool, cancelRequested: @escaping () -> Bool) {
        self.message = message
        self.loginConfigured = loginConfigured
        self.cancelRequested = cancelRequested
    }

    /// The server accepted a login on this connection (``debugCallback``).
    private var loggedIn = false
    /// The message was held back: a login is configured, none took place.
    private(set) var withheldForNoLogin = false

    private func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        // libcurl skips the login when the server offers none it knows
        // (no `AUTH ` in the EHLO reply: `AUTH=LOGIN` alone, lowercase) and
        // sends the mail anyway: an operator who set one wants it used
        // (the relay may take unauthenticated mail elsewhere, or only
        // locally). The message is the first thing read, after the login
        // would have been; cut here, the server drops the unfinished DATA
        // (RFC 5321).
        if offset == 0 && loginConfigured && !loggedIn {
            withheldForNoLogin = true
            return Int(CURL_READFUNC_ABORT)
        }
        let count = min(capacity, message.count - offset)
        guard count > 0 else { return 0 }
        message.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }

    static let readCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        buffer, size, count, user in
        guard let buffer, let user else { return Int(CURL_READFUNC_ABORT) }
        return Unmanaged<SMTPUpload>.fromOpaque(user).takeUnretainedValue().read(into: buffer, capacity: size * count)
    }

    /// The server's last reply line, up to 300 characters of plain text
    /// (``debugCallback``).
    private(set) var lastReply: String?

    /// `CURLOPT_DEBUGFUNCTION`: keeps the server's replies (`CURLINFO_HEADER_IN`)
    /// and nothing else; what alertd sends (the login) is never looked at.
    static let debugCallback: @convention(c) (UnsafeMutableRawPointer?, curl_infotype, UnsafeMutablePointer<CChar>?, Int, UnsafeMutableRawPointer?) -> Int32 = {
        _, type, data, size, user in
        guard type == CURLINFO_HEADER_IN, let data, let user, size > 0 else { return 0 }
        let upload = Unmanaged<SMTPUpload>.fromOpaque(user).takeUnretainedValue()
        let lines = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self).split(whereSeparator: \.isNewline)
        for line in lines { upload.heard(line) }
        let plain = String((lines.last ?? "").unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(300).map(Character.init))
        if !plain.isEmpty { upload.lastReply = plain }
        return 0
    }

    /// Notes a login the server accepted: RFC 4954 gives 235 to that
    /// alone. Whether libcurl tried one is its business (which `AUTH`
    /// spellings it reads, which mechanisms); whether one took place is
    /// what counts. A 220 (the greeting, or STARTTLS's go-ahead, after
    /// which the session starts over) clears it.
    private func heard(_ line: Substring) {
        if line.hasPrefix("220") { loggedIn = false } else if line.hasPrefix("235") { loggedIn = true }
    }

    /// The progress callback is how a cancelled task stops a blocking perform.
    static let progressCallback: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = {
        user, _, _, _, _ in
        guard let user else { return 1 }
        return Unmanaged<SMTPUpload>.fromOpaque(user).takeUnretainedValue().cancelRequested() ? 1 : 0
    }
}
