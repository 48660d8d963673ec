extension HTTPClientRequest {
    /// Refuses a header that would break the request: a name that is not an
    /// HTTP token, a value with a line break or NUL (header injection).
    package func validateHeaders() throws(HTTPClientError) {
        for field in headers {
            guard Self.isToken(field.name) else {
                throw .invalidRequest(url: redactedURL, reason: "header name `\(field.name)` is not a valid token")
            }
            var value = field.value
            guard !value.withUTF8({ $0.contains { $0 == 10 || $0 == 13 || $0 == 0 } }) else {
                throw .invalidRequest(url: redactedURL, reason: "header `\(field.name)` contains a line break")
            }
        }
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
