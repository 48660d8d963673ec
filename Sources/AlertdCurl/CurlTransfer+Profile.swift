extension CurlTransfer {
    /// The options a request sets that most requests on a handle share:
    /// method, limits, socket path, buffer and policy. A reused handle whose
    /// last request had the same profile keeps them, and only the request's
    /// own options (URL, body, headers, the transfer's pointers) are set
    /// again. `curl_easy_reset` and setting them all anew were some 5.6 k
    /// instructions of every delivery (bench/analysis.md).
    struct Profile: Equatable {
        let method: String
        let hasBody: Bool
        let connectTimeoutMilliseconds: Int
        let timeoutMilliseconds: Int
        let unixSocketPath: String?
        let receiveBufferSize: Int?
        let idleTimeout: Duration?
        /// A policy-checked or peer-checked request's options point at its
        /// transfer: such a handle is reset after every request.
        let confined: Bool

        /// Whether the request's body goes out through `CURLOPT_COPYPOSTFIELDS`.
        var postsFields: Bool { method != "HEAD" && (method == "POST" || hasBody) }

        init(_ request: HTTPClientRequest) {
            // Methods come upper case nearly always: `uppercased()` made a new String each time.
            let method = request.method
            self.method = method.utf8.contains(where: { (97...122).contains($0) }) ? method.uppercased() : method
            hasBody = request.body != nil
            connectTimeoutMilliseconds = max(1, request.connectTimeout.milliseconds)
            timeoutMilliseconds = max(1, request.timeout.milliseconds)
            unixSocketPath = request.unixSocketPath
            receiveBufferSize = request.receiveBufferSize
            idleTimeout = request.idleTimeout
            confined = request.connectPolicy != nil || (request.unixSocketPath != nil && request.unixSocketPeerCheck != nil)
        }
    }
}
