import FoundationEssentials
import AlertModel
import AlertdPOSIX

/// Shows alerts on a terminal (or whatever stdout/stderr is) as framed
/// blocks drawn by ``TerminalRenderer``.
public struct TerminalPresenter: AlertPresenter {
    public let name: String
    public let configuration: TerminalPresenterConfiguration
    /// Read once at creation for `NO_COLOR`, `TERM` and `COLUMNS`.
    package let environment: [String: String]
    /// Whether the stream is a terminal, when a test says so; nil asks `isatty`.
    package var outputIsTerminal: Bool?

    public init(
        name: String = "terminal", configuration: TerminalPresenterConfiguration = .init(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.name = name
        self.configuration = configuration
        self.environment = environment
    }

    /// Writes the block in one locked write, so alerts presented at the same
    /// time never mix their lines. Signed links are shown whole only on a
    /// terminal, where a person reads them; elsewhere (journald under
    /// systemd, a file) their tokens are redacted, as in any log.
    public func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        let writer = self.writer
        var context = delivery
        if !(outputIsTerminal ?? TerminalDevice.isTerminal(writer.fd)) {
            context.actionLinks = context.actionLinks.mapValues(ActionLinkSigner.redacted)
        }
        let text = TerminalRenderer.render(alert, context: context, width: width, colour: usesColour)
        if let code = writer.write(Array(text.utf8)) {
            return .retryableFailure(reason: "writing to \(configuration.stream.rawValue) failed: \(Errno(code).description)")
        }
        return .delivered
    }

    /// The columns to draw in: configured, else `COLUMNS`, else the
    /// terminal's own width, else 80.
    public var width: Int {
        if let width = configuration.width { return width }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return TerminalDevice.columns(writer.fd) ?? 80
    }

    /// Whether to colour: `always`, or `auto` on a terminal when `NO_COLOR`
    /// is unset or empty (no-color.org) and `TERM` is not `dumb`.
    public var usesColour: Bool {
        switch configuration.colour {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
            if environment["TERM"] == "dumb" { return false }
            return outputIsTerminal ?? TerminalDevice.isTerminal(writer.fd)
        }
    }

    private var writer: FileDescriptorWriter {
        configuration.stream == .standardOutput ? .standardOutput : .standardError
    }
}
