import AlertModel

extension HTTPClientRequest {
    /// Refuses a header that would break the request: a name that is not an
    /// HTTP token, a value with a line break (header injection) or another
    /// control character but tab.
    package func validateHeaders() throws(HTTPClientError) {
        for field in headers {
            if let problem = Self.headerProblem(name: field.name, value: field.value) {
                throw .invalidRequest(url: redactedURL, reason: problem)
            }
        }
    }

    /// Whether `name` is a header that frames the message or manages the
    /// connection, which libcurl writes from what it sends: given by a
    /// configuration, `Content-Length: 5` or `Transfer-Encoding: chunked`
    /// made the receiver read a body that was not the one sent.
    package static func transportOwnsHeader(named name: String) -> Bool {
        ["content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer", "proxy-connection", "expect"]
            .contains(name.lowercased())
    }

    /// Why a header cannot be sent as given, or nil: its name must be an
    /// HTTP token, and its value may hold no control character but tab
    /// (RFC 9110 §5.5; a line break would be header injection). Checked
    /// again for every request, and by configurations that set headers, so
    /// a bad one is refused when the config loads, not at the first delivery.
    package static func headerProblem(name: String, value: String) -> String? {
        guard isToken(name) else {
            return "header name \(JSONObject.quoted(name)) is not a valid token (letters, digits and !#$%&'*+-.^_`|~)"
        }
        var value = value
        if let c = value.withUTF8({ $0.first { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F } }) {
            let what = c == 10 || c == 13 ? "a line break" : "a control character"
            return "header `\(name)` contains \(what); only tab is allowed among control characters"
        }
        return nil
    }

    /// The token characters (RFC 9110 §5.6.2) as a bit per ASCII code:
    /// this runs for every header of every request.
    private static let tokenCharacters: (low: UInt64, high: UInt64) = {
        var bits: (low: UInt64, high: UInt64) = (0, 0)
        for c in Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~".utf8) {
            if c < 64 { bits.low |= 1 << UInt64(c) } else { bits.high |= 1 << UInt64(c - 64) }
        }
        return bits
    }()

    private static func isToken(_ name: String) -> Bool {
        let bits = tokenCharacters
        var name = name
        return name.withUTF8 { utf8 in
            !utf8.isEmpty && utf8.allSatisfy { c in
                c < 64 ? bits.low >> UInt64(c) & 1 == 1 : c < 128 && bits.high >> UInt64(c - 64) & 1 == 1
            }
        }
    }
}
