import AlertdHTTP
extension IPAddress {
    /// The address a URL's host names literally, read the way libcurl reads
    /// it, or nil for a host name. Besides the strict forms this accepts
    /// libcurl's (and browsers') other IPv4 spellings: one to four parts,
    /// each decimal, octal (`0177`) or hex (`0x7f`), the last part filling
    /// the remaining bytes, so `2130706433`, `0177.1` and `0x7f.0.0.1` are
    /// all 127.0.0.1. Without this, such a host would pass a check meant for
    /// literal addresses as if it were a name.
    public init?(urlHost host: String) {
        if host.hasPrefix("[") {
            // No zone id (`%25eth0`): parsers disagree on its escaping.
            guard host.hasSuffix("]"), !host.contains("%"), let v6 = IPAddress.parseIPv6(String(host.dropFirst().dropLast())) else { return nil }
            self.init(bytes: v6)
        } else if let address = IPAddress(host) {
            self = address
        } else if let v4 = IPAddress.parseLooseIPv4(host) {
            self.init(bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + v4)
        } else {
            return nil
        }
    }

    /// libcurl's `ipv4_normalize` (lib/urlapi.c): each part is what
    /// `strtoul(part, 0)` reads in full, with no sign and no empty part.
    package static func parseLooseIPv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt32] = []
        for part in parts {
            // A digit first and no sign anywhere: `Int(_:radix:)` would take "+5".
            guard let first = part.first, first.isASCII, first.isNumber,
                  part.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "x" || $0 == "X") }) else { return nil }
            let value: UInt32?
            if part.hasPrefix("0x") || part.hasPrefix("0X") {
                value = part.count > 2 ? UInt32(part.dropFirst(2), radix: 16) : nil
            } else if part.hasPrefix("0") && part.count > 1 {
                value = UInt32(part.dropFirst(), radix: 8)
            } else {
                value = UInt32(part, radix: 10)
            }
            guard let value else { return nil }
            values.append(value)
        }
        // All but the last part are one byte each; the last fills the rest.
        let leading = values.dropLast()
        guard leading.allSatisfy({ $0 <= 0xFF }) else { return nil }
        let lastBytes = 4 - leading.count
        let last = values[values.count - 1]
        guard lastBytes == 4 || last < (UInt32(1) << (8 * UInt32(lastBytes))) else { return nil }
        var out = leading.map { UInt8($0) }
        for shift in stride(from: 8 * (lastBytes - 1), through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: last >> UInt32(shift)))
        }
        return out
    }
}
