import AlertModel

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

extension TerminalPresenterConfiguration: PresenterConfiguration {
    public static let typeName = "terminal"
    public static let keys = ["colour"]
    public static var example: [String: Any] { ["colour": "auto"] }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        self.init()
        if let raw = reader.string(object, "colour", at: path) {
            if let mode = ColourMode(rawValue: raw) { colour = mode } else { reader.problem(path + ".colour", "must be auto, always or never") }
        }
    }

    public func makePresenter(name: String, context: PresenterContext) -> any AlertPresenter {
        TerminalPresenter(name: name, configuration: self)
    }
}
