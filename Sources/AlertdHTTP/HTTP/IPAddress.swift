/// An IPv4 or IPv6 address as 16 bytes (IPv4 as IPv4-mapped IPv6), so one
/// set of range checks covers both families and the `::ffff:127.0.0.1`
/// spelling of an IPv4 address cannot slip past a check meant for it.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Parses dotted-quad IPv4 (strict: four decimal parts, 0–255) or IPv6 text.
    public init?(_ text: String) {
        if let v4 = IPAddress.parseIPv4(Substring(text)) {
            bytes = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + v4
        } else if let v6 = IPAddress.parseIPv6(text) {
            bytes = v6
        } else {
            return nil
        }
    }

    /// The address of these 16 bytes (an IPv4 one mapped); nil for another count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// What a client at this address is counted as, for limits kept per
    /// client: an IPv4 address itself, an IPv6 one its /64 (a host is
    /// commonly given a whole /64, and could open each connection or stream
    /// from a new address of it).
    public var client: String {
        guard ipv4 == nil else { return description }
        return (IPAddress(bytes: Array(bytes.prefix(8)) + Array(repeating: 0, count: 8))?.description ?? description) + "/64"
    }

    /// The client a peer's address text is counted as (``client``); the
    /// text itself when it is not an address.
    public static func client(_ text: String) -> String {
        IPAddress(text)?.client ?? text
    }

    /// The IPv4 address inside an IPv4-mapped one.
    public var ipv4: [UInt8]? {
        bytes.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) ? Array(bytes.suffix(4)) : nil
    }

    /// Dotted quad, or IPv6 as RFC 5952 writes it: the longest run of two
    /// or more zero groups (the first, on a tie) as `::`, so `::1`, not
    /// `0:0:0:0:0:0:0:1`.
    public var description: String {
        if let v4 = ipv4 { return v4.map(String.init).joined(separator: ".") }
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        var best = (start: 0, count: 0), run = (start: 0, count: 0)
        for (i, g) in groups.enumerated() {
            run = g == 0 ? (run.count == 0 ? (i, 1) : (run.start, run.count + 1)) : (0, 0)
            if run.count > best.count { best = run }
        }
        func text(_ part: ArraySlice<UInt16>) -> String { part.map { String($0, radix: 16) }.joined(separator: ":") }
        guard best.count >= 2 else { return text(groups[...]) }
        return text(groups[..<best.start]) + "::" + text(groups[(best.start + best.count)...])
    }

    /// Where an address points, for the handler policy.
    public enum Scope: String, Sendable {
        case loopback = "a loopback address"
        case linkLocal = "a link-local address (cloud metadata services live here)"
        case privateNetwork = "a private network address"
        case unspecified = "an unspecified address"
        case multicast = "a multicast address"
        case reserved = "a reserved address"
        case global = "a public address"
    }

    public var scope: Scope {
        if let v4 = ipv4 {
            switch (v4[0], v4[1]) {
            case (127, _): return .loopback
            case (169, 254): return .linkLocal
            case (10, _), (192, 168): return .privateNetwork
            case (172, 16...31): return .privateNetwork
            case (100, 64...127): return .privateNetwork  // carrier-grade NAT
            case (0, _): return .unspecified
            case (224...239, _): return .multicast
            case (240...255, _): return .reserved  // includes 255.255.255.255
            case (198, 18...19): return .reserved  // benchmarking networks, often internal
            case (192, 0) where v4[2] == 0: return .reserved
            default: return .global
            }
        }
        if bytes.allSatisfy({ $0 == 0 }) { return .unspecified }
        if bytes.prefix(15).allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return .loopback }
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return .linkLocal }
        if bytes[0] & 0xFE == 0xFC { return .privateNetwork }
        if bytes[0] == 0xFF { return .multicast }
        // IPv4-compatible (::a.b.c.d, deprecated by RFC 4291): no public
        // address is written so, and `::127.0.0.1` must not pass as one.
        if bytes.prefix(12).allSatisfy({ $0 == 0 }) { return .reserved }
        // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) wrap IPv4 addresses;
        // what they reach is the embedded address.
        // So do IPv4-translated addresses (::ffff:0:a.b.c.d, RFC 2765),
        // which a stack may route to the IPv4 address.
        if bytes.prefix(12).elementsEqual([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0])
            || bytes.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0]),
           let inner = IPAddress(bytes.suffix(4).map(String.init).joined(separator: ".")) {
            return inner.scope
        }
        if bytes[0] == 0x20 && bytes[1] == 0x02,
           let inner = IPAddress(bytes[2..<6].map(String.init).joined(separator: ".")) {
            return inner.scope
        }
        // Local-use NAT64 (64:ff9b:1::/48, RFC 8215) places the IPv4 address
        // where its operator's prefix length says, unknown here; site-local
        // (fec0::/10) is a private network its deprecation left in use.
        if bytes.prefix(6).elementsEqual([0, 0x64, 0xFF, 0x9B, 0, 1]) || (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0) {
            return .privateNetwork
        }
        // Teredo (2001::/32) tunnels to an IPv4 address through a relay; the
        // discard prefix (100::/64) reaches nothing anyone means to call.
        if bytes.prefix(4).elementsEqual([0x20, 0x01, 0, 0]) || bytes.prefix(8).elementsEqual([0x01, 0, 0, 0, 0, 0, 0, 0]) {
            return .reserved
        }
        return .global
    }

    package static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for p in parts {
            // Decimal only, no leading zeros: "0177" is octal to some parsers and must not be read as 177.
            guard !p.isEmpty, p.count <= 3, p.allSatisfy(\.isASCII), p.allSatisfy(\.isNumber),
                  p == "0" || !p.hasPrefix("0"), let n = UInt8(p) else { return nil }
            out.append(n)
        }
        return out
    }

    package static func parseIPv6(_ raw: String) -> [UInt8]? {
        var text = Substring(raw)
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }  // zone id
        guard text.contains(":") else { return nil }
        var groups: [UInt16] = []
        var tail: [UInt8] = []
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func parse(_ part: String, allowIPv4: Bool) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var out: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (i, piece) in pieces.enumerated() {
                if allowIPv4 && i == pieces.count - 1 && piece.contains(".") {
                    guard let v4 = parseIPv4(piece) else { return nil }
                    tail = v4
                    continue
                }
                guard (1...4).contains(piece.count), let g = UInt16(piece, radix: 16) else { return nil }
                out.append(g)
            }
            return out
        }
        guard let head = parse(halves[0], allowIPv4: halves.count == 1) else { return nil }
        let rest = halves.count == 2 ? parse(halves[1], allowIPv4: true) : []
        guard let rest else { return nil }
        let used = head.count + rest.count + tail.count / 2
        if halves.count == 2 {
            guard used < 8 else { return nil }
            groups = head + Array(repeating: 0, count: 8 - used) + rest
        } else {
            guard used == 8 else { return nil }
            groups = head
        }
        var bytes = groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        bytes += tail
        return bytes.count == 16 ? bytes : nil
    }
}

/// An address range such as `10.0.0.0/8` or `fe80::/10`; a bare address is a /32 or /128.
public struct IPRange: Sendable, Hashable {
    public let base: IPAddress
    /// Prefix length over the 16-byte form.
    public let bits: Int

    public init?(_ text: String) {
        // Empty parts kept: "" and "/" have no address (indexing them trapped,
        // and a reload with such an `actions.allow` entry took the daemon down),
        // and "10.0.0.0/" no length.
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let base = IPAddress(parts[0]) else { return nil }
        let isV4 = base.ipv4 != nil && !parts[0].contains(":")
        let length: Int
        if parts.count == 2 {
            guard let n = Int(parts[1]), n >= 0, n <= (isV4 ? 32 : 128) else { return nil }
            length = n
        } else {
            length = isV4 ? 32 : 128
        }
        self.base = base
        self.bits = isV4 ? length + 96 : length
    }

    public func contains(_ address: IPAddress) -> Bool {
        var remaining = bits
        for i in 0..<16 where remaining > 0 {
            let take = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - take))
            if base.bytes[i] & mask != address.bytes[i] & mask { return false }
            remaining -= take
        }
        return true
    }
}
