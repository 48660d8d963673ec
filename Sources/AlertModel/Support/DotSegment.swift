/// A URL path segment that names the current (`.`) or parent (`..`)
/// segment, with `%2e` read as `.` (any case), since servers decode before
/// they resolve. Handler URLs are resolved by it, and templates refuse
/// values that would make one.
package enum DotSegment: Sendable, Equatable {
    case current, parent

    /// The dot segment `segment` is, or nil when it is none.
    package init?(_ segment: some StringProtocol) {
        switch String(segment).replacing(#/%2e/#.ignoresCase(), with: ".") {
        case ".": self = .current
        case "..": self = .parent
        default: return nil
        }
    }
}
