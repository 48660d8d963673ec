import AlertModel

/// A request target (`/path?query`) taken apart. Malformed escapes are kept
/// as they were sent rather than rejected: the router then simply finds no
/// route, which is the answer such a request deserves.
package struct HTTPRequestTarget: Sendable, Equatable {
    package var path: String
    package var query: String
    package var queryItems: [HTTPRequest.QueryItem]

    package init(_ target: String) {
        let utf8 = target.utf8
        let rawPath: Substring.UTF8View
        if let q = utf8.firstIndex(of: UInt8(ascii: "?")) {
            rawPath = target[..<q].utf8
            query = String(target[target.index(after: q)...])
        } else {
            rawPath = target[...].utf8
            query = ""
        }
        // `%2F` stays encoded: decoded, it split a segment in two for the
        // router, and `/v1/alerts/<id>%2Fconfirm` confirmed the alert
        // through a path a proxy filtering by prefix had not seen as one.
        path = Self.percentDecode(rawPath, plusIsSpace: false, keepingEncoded: UInt8(ascii: "/"))
        queryItems = Self.parseQuery(query)
    }

    package static func parseQuery(_ query: String) -> [HTTPRequest.QueryItem] {
        var items: [HTTPRequest.QueryItem] = []
        for part in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let eq = part.firstIndex(of: UInt8(ascii: "=")) {
                items.append(.init(
                    name: percentDecode(part[..<eq], plusIsSpace: true),
                    value: percentDecode(part[part.index(after: eq)...], plusIsSpace: true)))
            } else {
                items.append(.init(name: percentDecode(part, plusIsSpace: true), value: ""))
            }
        }
        return items
    }

    /// `text` as one URL component (a path segment, a query name or value):
    /// every byte but RFC 3986's unreserved characters as `%XX`.
    package static func percentEncode(_ text: String) -> String {
        func unreserved(_ b: UInt8) -> Bool {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
            default: false
            }
        }
        guard !text.utf8.allSatisfy(unreserved) else { return text }
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3)
        for b in text.utf8 {
            if unreserved(b) { out.append(b) } else { out += [UInt8(ascii: "%"), digits[Int(b >> 4)], digits[Int(b & 0xF)]] }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes (and `+` in query components), but for the
    /// escapes of `kept`, which stay as sent; invalid UTF-8 becomes U+FFFD.
    package static func percentDecode<C: Collection>(_ bytes: C, plusIsSpace: Bool, keepingEncoded kept: UInt8? = nil) -> String
        where C.Element == UInt8 {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(decoding: PercentDecoding.bytes(bytes, plusIsSpace: plusIsSpace, keepingEncoded: kept), as: UTF8.self)
    }
}
