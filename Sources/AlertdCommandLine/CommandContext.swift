import FoundationEssentials
import AlertdPOSIX

/// What a running command may touch: its environment, standard streams and
/// the signals sent to it. Commands print through it, so tests can run them
/// in-process and read what they printed.
public struct CommandContext: Sendable {
    public var environment: [String: String]
    /// Receives text for standard output.
    public var output: @Sendable (String) -> Void
    /// Receives text for standard error.
    public var errorOutput: @Sendable (String) -> Void
    /// Reads standard input to its end, or to ``inputLimit`` bytes and a
    /// little more; nil if it cannot be read.
    public var readInput: @Sendable () -> Data?

    /// The most of standard input read: only `--message -` reads it, and
    /// the longest message a daemon's `limits.max_message_length` may allow,
    /// 1,000,000 characters, is 4 MiB at most. What is read past it is too
    /// long for any message, which says so; `yes |` never ended.
    public static let inputLimit = 4 << 20
    /// Whether standard input and output are a terminal a person types at,
    /// so a command may draw for them and read single keys (`watch`).
    public var isInteractive: Bool
    /// The signals the executable hands the command, as they arrive. Only an
    /// executable's `main` decides how the process treats signals; without
    /// one, no signal ever comes.
    public var signals: AsyncStream<ProcessSignal>

    public init(
        environment: [String: String],
        output: @escaping @Sendable (String) -> Void,
        errorOutput: @escaping @Sendable (String) -> Void,
        readInput: @escaping @Sendable () -> Data?,
        isInteractive: Bool = false,
        signals: AsyncStream<ProcessSignal> = AsyncStream { $0.finish() }
    ) {
        self.environment = environment
        self.output = output
        self.errorOutput = errorOutput
        self.readInput = readInput
        self.isInteractive = isInteractive
        self.signals = signals
    }

    /// The real process: its environment, stdout, stderr and stdin.
    public static func process() -> CommandContext {
        CommandContext(
            environment: CurrentProcess.environment,
            output: { _ = FileDescriptorWriter.standardOutput.write(Array($0.utf8)) },
            errorOutput: { _ = FileDescriptorWriter.standardError.write(Array($0.utf8)) },
            readInput: {
                // Typed at a terminal, the wait for input looked like a hang.
                if TerminalDevice.isTerminal(0) {
                    let program = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? "alertctl"
                    _ = FileDescriptorWriter.standardError.write(Array("\(program): reading standard input; end it with Ctrl-D\n".utf8))
                }
                return (try? FileDescriptorReader.readPrefix(0, limit: inputLimit).get()).map { Data($0) }
            },
            isInteractive: TerminalDevice.isTerminal(0) && TerminalDevice.isTerminal(1)
        )
    }
}
