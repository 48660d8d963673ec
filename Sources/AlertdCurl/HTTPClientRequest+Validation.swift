extension HTTPClientRequest {
    /// Refuses a header that would break the request: a name that is not an
    /// HTTP token, a value with a line break or NUL (header injection).
    package func validateHeaders() throws(HTTPClientError) {
        for field in headers {
            guard Self.isToken(field.name) else {
                throw .invalidRequest(url: redactedURL, reason: "header name `\(field.name)` is not a valid token")
            }
            guard !field.value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }) else {
                throw .invalidRequest(url: redactedURL, reason: "header `\(field.name)` contains a line break")
            }
        }
    }

    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { c in
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(c)
            }
        }
    }
}
