/// How a ``TerminalPresenter`` draws. Every field has a default that suits
/// an interactive terminal.
public struct TerminalPresenterConfiguration: Sendable, Equatable {
    /// Which standard stream the alerts go to.
    public enum Stream: String, Sendable, Equatable, CaseIterable {
        case standardOutput = "stdout"
        case standardError = "stderr"
    }

    /// When to use ANSI colours.
    public enum ColourMode: String, Sendable, Equatable, CaseIterable {
        /// Only when the stream is a terminal and `NO_COLOR` is not set.
        case auto
        case always
        case never
    }

    public var stream: Stream
    public var colour: ColourMode
    /// Columns to draw in; nil means `COLUMNS`, else the terminal's width,
    /// else 80.
    public var width: Int?

    public init(stream: Stream = .standardOutput, colour: ColourMode = .auto, width: Int? = nil) {
        self.stream = stream
        self.colour = colour
        self.width = width
    }
}
