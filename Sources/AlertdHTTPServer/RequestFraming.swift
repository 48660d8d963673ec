import CMicroHTTPD

/// What a request's header fields say about how to read it, found in one
/// pass over them when its head is in and before any of its body is read.
///
/// The problems it names are the ones RFC 9112 tells a server to refuse,
/// because a proxy in front may read the same bytes another way (request
/// smuggling) and libmicrohttpd 0.9.75 lets them through: two `Host`
/// fields, `Content-Length` together with `Transfer-Encoding`, a transfer
/// coding other than `chunked` (it would wait for a body it cannot frame), a
/// field name with a space or separator in it (`Transfer-Encoding :` was
/// read as some other field), a NUL, CR or LF inside a value, a value
/// folded onto the next line, and `Transfer-Encoding` given twice.
struct RequestFraming {
    /// The first `Content-Length` value, as sent.
    var contentLength: String?
    /// Whether another `Content-Length` disagrees with the first.
    var conflictingLengths = false
    /// Whether the request has a `Transfer-Encoding` field at all.
    var hasTransferEncoding = false
    /// Whether every `Transfer-Encoding` it has is exactly `chunked`.
    var onlyChunked = true
    /// How many `Transfer-Encoding` fields it has.
    var transferEncodings = 0
    var hosts = 0
    var malformedName = false
    var malformedValue = false
    /// Where the last field's value ended, as libmicrohttpd measured it.
    private var valueEnd: UnsafePointer<CChar>?

    /// Reads the fields of `connection`'s request.
    init(_ connection: OpaquePointer) {
        withUnsafeMutablePointer(to: &self) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
                let framing = cls!.assumingMemoryBound(to: RequestFraming.self)
                framing.pointee.follow(key)
                framing.pointee.read(
                    name: UnsafeRawBufferPointer(start: key, count: key == nil ? 0 : keySize),
                    value: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))
                framing.pointee.valueEnd = value.map { $0 + valueSize }
                return .YES
            }, pointer)
        }
        follow(nil)
    }

    /// Catches a value a raw NUL cut short. libmicrohttpd 0.9.75 measures
    /// values with `strlen` in the buffer it read the head into, having
    /// put a NUL where each line's CR and LF were, so `Host: a\0.evil`
    /// reaches us as `a` and no byte of the value shows the NUL. A whole
    /// value is followed by its line's end alone: the next field's name
    /// one byte on (LF) or two (CRLF, the second a NUL too), and after
    /// the last field the empty line's NUL. Anything else between is what
    /// the NUL cut off, or a value folded onto the next line (obs-fold,
    /// which RFC 9112 §5.2 lets a server refuse).
    private mutating func follow(_ nextName: UnsafePointer<CChar>?) {
        guard let end = valueEnd else { return }
        if let nextName {
            if !(nextName == end + 1 || (nextName == end + 2 && end[1] == 0)) { malformedValue = true }
        } else if end[1] != 0 {
            malformedValue = true
        }
    }

    /// Takes one field into account. Runs for every field of every request,
    /// so most names are ruled out by their length before any comparison.
    mutating func read(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let masks = Self.tokenBytes
        if name.isEmpty || !name.allSatisfy({ $0 < 64 ? masks.low >> UInt64($0) & 1 == 1 : $0 < 128 && masks.high >> UInt64($0 - 64) & 1 == 1 }) {
            malformedName = true
        }
        if value.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) { malformedValue = true }
        switch name.count {
        case 4 where Self.same(name, "host"):
            hosts += 1
        case 14 where Self.same(name, "content-length"):
            let text = String(decoding: value, as: UTF8.self)
            if let first = contentLength {
                if first != text { conflictingLengths = true }
            } else {
                contentLength = text
            }
        case 17 where Self.same(name, "transfer-encoding"):
            hasTransferEncoding = true
            transferEncodings += 1
            // As libmicrohttpd compares it: untrimmed. `chunked ` with a
            // trailing space was taken for chunked here, and by it for no
            // framing at all: it read the connection to its end, swallowing
            // the requests after it.
            if !Self.same(value, "chunked") { onlyChunked = false }
        default:
            break
        }
    }

    /// The answer the request gets instead of being read, or nil when it may be read.
    var problem: (status: Int, code: String, message: String)? {
        if malformedName {
            return (status: 400, code: "invalid_header", message: "A header field name contains a space or a character names may not have (as in `Name : value`); send it as `Name: value`.")
        }
        if malformedValue {
            return (status: 400, code: "invalid_header", message: "A header field value contains a NUL, CR or LF byte, or is folded onto the next line; send each value on its line, without them.")
        }
        if hosts > 1 {
            return (status: 400, code: "invalid_header", message: "The request has more than one Host header; send one.")
        }
        if transferEncodings > 1 {
            // Chunked twice (RFC 9112 §6.1 forbids it): a proxy may have
            // undone one and read the rest differently.
            return (status: 400, code: "invalid_header", message: "The request has more than one Transfer-Encoding header; send `Transfer-Encoding: chunked` once.")
        }
        if conflictingLengths {
            // libmicrohttpd reads the body by the first; a proxy in front may
            // have used another, and the rest would be read as a request of
            // its own (request smuggling). RFC 9112 §6.3: refuse, and close.
            return (status: 400, code: "conflicting_content_length", message: "The request has Content-Length headers that disagree; send one.")
        }
        if hasTransferEncoding && contentLength != nil {
            return (status: 400, code: "conflicting_content_length", message: "The request has both Transfer-Encoding and Content-Length; send one of them.")
        }
        if hasTransferEncoding && !onlyChunked {
            return (status: 501, code: "unsupported_transfer_encoding", message: "The only transfer coding alertd reads is `chunked`; send the body with Content-Length or as chunked.")
        }
        return nil
    }

    /// RFC 9110 §5.6.2's `tchar`, what a field name is made of, as a bit
    /// per ASCII byte: every byte of every name of every request is looked up.
    private static let tokenBytes: (low: UInt64, high: UInt64) = {
        var masks: (low: UInt64, high: UInt64) = (0, 0)
        for byte in "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8 {
            if byte < 64 { masks.low |= 1 << UInt64(byte) } else { masks.high |= 1 << UInt64(byte - 64) }
        }
        return masks
    }()

    /// Whether `bytes` are `lowercase` in any case (ASCII).
    private static func same(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return zip(bytes, expected).allSatisfy { ($0 | 0x20) == $1 }
    }
}
