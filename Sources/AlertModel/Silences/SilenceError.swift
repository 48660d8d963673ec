/// Why a matcher or a silence was refused. ``code`` is stable for programs;
/// ``message`` says what to change.
public struct SilenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable codes; the API and alertctl report them as they are.
    public enum Code: String, Sendable, CaseIterable {
        /// Not `name=value`, `name!=value`, `name=~regex` or `name!~regex`.
        case invalidMatcher = "invalid_matcher"
        /// The regex is not well formed.
        case invalidRegex = "invalid_regex"
        /// The regex uses RE2 syntax outside the subset alertd implements.
        case unsupportedRegex = "unsupported_regex"
        /// The silence breaks a rule of its own: no matchers, no author,
        /// an end before its start, and so on.
        case invalidSilence = "invalid_silence"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) [\(code.rawValue)]" }
}
