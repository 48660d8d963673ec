import FoundationEssentials
import AlertModel

extension HandlerURL {
    /// RFC 3986's remove_dot_segments over a percent-encoded path, with
    /// `%2e` read as `.` first, since servers decode before they resolve.
    /// Also says whether a segment left in the result is ambiguous
    /// (see ``hasAmbiguousPath``).
    package static func removingDotSegments(_ encodedPath: String) -> (path: String, ambiguous: Bool) {
        var segments = encodedPath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // A path is "" or starts with "/": the first piece is always empty.
        if segments.first == "" { segments.removeFirst() }
        var out: [String] = []
        var ambiguous = false
        for (i, segment) in segments.enumerated() {
            let isLast = i == segments.count - 1
            switch DotSegment(segment) {
            case .current:
                if isLast { out.append("") }
            case .parent:
                if !out.isEmpty { out.removeLast() }
                if isLast { out.append("") }
            case nil:
                if isAmbiguous(segment) { ambiguous = true }
                out.append(segment)
            }
        }
        return ("/" + out.joined(separator: "/"), ambiguous)
    }

    /// A segment some server may split, or resolve, differently from us.
    private static func isAmbiguous(_ segment: String) -> Bool {
        let lower = segment.lowercased()
        if lower.contains("%2f") || lower.contains("%5c") || lower.contains("%00") || segment.contains("\\") { return true }
        // `..;x` is `..` to servlet containers, which drop path parameters,
        // and so is `..%20;x` to one that trims what is left.
        let withParameters = segment.replacing(#/%3b/#.ignoresCase(), with: ";")
        if withParameters.contains(";") {
            let beforeParameters = String(withParameters.prefix { $0 != ";" })
            if DotSegment(beforeParameters) != nil || isAmbiguous(beforeParameters) { return true }
        }
        // Bytes no UTF-8 decoder should take: `%c0%ae` is an overlong `.`
        // to the lenient ones some servers have.
        guard let once = PercentDecoding.decoded(segment) else { return true }
        // IIS and .NET decode `%uXXXX`, which is no escape to anyone else.
        if lower.contains("%u") { return true }
        // A proxy that decodes before it forwards ends the path at a `%3f`
        // or `%23`: `..%3fx` is `..` and a query to what is behind it.
        if let end = once.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            let before = String(once[..<end])
            if DotSegment(before) != nil || (before != once && isAmbiguous(before)) { return true }
        }
        // Windows servers trim a segment's trailing dots and spaces (`..%20`,
        // `...` are `..` to them), and others trim more (``readsAsDotOrSpace(_:)``):
        // a segment of nothing else is a dot segment to someone, unless it
        // is one to us already.
        if once != "." && once != "..", !once.isEmpty, once.unicodeScalars.allSatisfy(Self.readsAsDotOrSpace) { return true }
        // Servers that apply NFKC make dots, slashes and spaces of fullwidth,
        // small and vertical forms and leaders (`．`, `／`, `＼`, `︰`, `‥`, a
        // no-break space), too many to list: any punctuation, symbol or
        // space beyond ASCII makes a segment ambiguous.
        if once.unicodeScalars.contains(where: Self.mayBecomeASCIIPunctuation) { return true }
        // Decoded twice, by a proxy and then the server behind it: after the
        // first, `%252e%252e` and `%252%65%252%65` are `%2e%2e`, `..` to the second.
        guard once.contains("%"), once != segment else { return false }
        return DotSegment(once) != nil || isAmbiguous(once)
    }

    /// Dots, and what a server may trim from a segment's ends or read as a
    /// space: Windows trims dots and spaces, `trim()` and `strip()` every
    /// control and white space, a form decoder reads `+` as a space, and
    /// format characters (a zero-width space, a soft hyphen) show as nothing.
    private static func readsAsDotOrSpace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "." || scalar == "+" || scalar.properties.isWhitespace { return true }
        switch scalar.properties.generalCategory {
        case .control, .format: return true
        default: return false
        }
    }

    /// A character beyond ASCII that is punctuation, a symbol or a space:
    /// what NFKC may turn into `.`, `/`, `\` or a space.
    private static func mayBecomeASCIIPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII else { return false }
        return switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation,
             .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol, .spaceSeparator, .lineSeparator,
             .paragraphSeparator:
            true
        default:
            false
        }
    }
}
