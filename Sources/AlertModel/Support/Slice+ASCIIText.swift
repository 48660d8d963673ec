/// Text read as bytes where it is known to be ASCII: header values and
/// names on every request, where going by Characters cost thousands of
/// instructions each for what `trimmingSpaces()` and `lowercased()` do.
extension Slice where Base == UnsafeBufferPointer<UInt8> {
    /// Without spaces and tabs at either end, as `trimmingSpaces()` trims ASCII.
    package func trimmingSpaces() -> Self {
        var lower = startIndex
        var upper = endIndex
        while lower < upper, self[lower] == UInt8(ascii: " ") || self[lower] == UInt8(ascii: "\t") { lower += 1 }
        while upper > lower, self[upper - 1] == UInt8(ascii: " ") || self[upper - 1] == UInt8(ascii: "\t") { upper -= 1 }
        return self[lower..<upper]
    }

    /// The bytes as text, ASCII letters lowercased: `lowercased()` for ASCII.
    package var lowercasedASCII: String {
        String(unsafeUninitializedCapacity: count) { out in
            for (i, byte) in enumerated() { out[i] = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte }
            return count
        }
    }
}
