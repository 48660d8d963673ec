import FoundationEssentials
import AlertModel
import AlertdHTTP

/// Reading and rejecting request bodies, the same way for every endpoint.
package enum APIRequestBody {
    /// The body parsed as JSON; a body without the JSON content type is a
    /// 415, one that does not parse a 400.
    package static func json(_ request: HTTPRequest) throws(APIError) -> Any {
        try read(request) { reader throws(StrictJSON.Failure) in try reader.value() }
    }

    /// The body read by `body`, which reads its one JSON value from the
    /// reader (``StrictJSON/read(_:_:)``), refused as ``json(_:)`` refuses one.
    package static func read<T>(_ request: HTTPRequest, _ body: (inout StrictJSON.Reader) throws(StrictJSON.Failure) -> T) throws(APIError) -> T {
        let type = mediaType(request)
        guard type == "application/json" else {
            throw APIError(
                status: 415, code: "unsupported_media_type",
                message: "Send the body as JSON with `Content-Type: application/json`\(type.map { "; got `\($0)`" } ?? "").")
        }
        do {
            return try StrictJSON.read(request.body, body)
        } catch {
            throw APIError(status: 400, code: "malformed_json", message: "The body is not valid JSON: \(error.description)")
        }
    }

    /// `Content-Type` without its parameters, lowercased: `application/json`.
    /// The first part between semicolons that is not empty, trimmed of
    /// spaces and tabs; nil when there is none.
    package static func mediaType(_ request: HTTPRequest) -> String? {
        guard var value = request.headers["Content-Type"] else { return nil }
        // As bytes when ASCII, as a Content-Type is: split into Characters,
        // it cost 7 k instructions, and every request with a body asks twice.
        guard value.withUTF8({ $0.allSatisfy { $0 < 0x80 } }) else {
            return value.split(separator: ";").first?.trimmingSpaces().lowercased()
        }
        return value.withUTF8 { utf8 -> String? in
            var start = 0
            while start < utf8.count {
                var end = start
                while end < utf8.count, utf8[end] != UInt8(ascii: ";") { end += 1 }
                if end > start { return utf8[start..<end].trimmingSpaces().lowercasedASCII }
                start = end + 1
            }
            return nil
        }
    }
}
