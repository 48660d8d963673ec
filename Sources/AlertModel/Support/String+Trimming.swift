extension StringProtocol {
    /// Without spaces and tabs at either end: what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` gives, without needing full
    /// Foundation (and ICU) for it.
    package func trimmingSpaces() -> String {
        // ASCII answered without the Unicode tables: it is most of what is trimmed.
        trimming { $0.isASCII ? $0 == " " || $0 == "\t" : $0.properties.generalCategory == .spaceSeparator }
    }

    /// Without whitespace or line breaks at either end, as
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` gives.
    package func trimmingWhitespace() -> String {
        trimming { $0.isASCII ? $0 == " " || ("\t"..."\r").contains($0) : $0.properties.isWhitespace }
    }

    private func trimming(_ drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = Substring(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }), let last = scalars.lastIndex(where: { !drop($0) }) else {
            return ""
        }
        // Nothing to trim, the usual case: the string itself, not a copy.
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return String(self) }
        return String(scalars[first...last])
    }
}
