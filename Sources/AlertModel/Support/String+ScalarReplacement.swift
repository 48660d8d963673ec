extension String {
    /// This text with each scalar in `table` replaced by its text. Escaping
    /// must go by scalars: `replacing("<", with: …)` compares whole
    /// Characters, and a `<` that a combining mark follows, or a Prepend
    /// letter (U+0D4E, U+0600…) precedes, is one Character with it and
    /// slipped through unescaped.
    public func replacingScalars(_ table: [Unicode.Scalar: String]) -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for c in unicodeScalars {
            if let replacement = table[c] { out += replacement } else { out.unicodeScalars.append(c) }
        }
        return out
    }
}
