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
    /// Why writing to standard output failed, if it did (other than for a
    /// reader that closed the pipe, as `| head` does); see ``ending(with:)``.
    public var outputFailure: @Sendable () -> String?

    public init(
        environment: [String: String],
        output: @escaping @Sendable (String) -> Void,
        errorOutput: @escaping @Sendable (String) -> Void,
        readInput: @escaping @Sendable () -> Data?,
        isInteractive: Bool = false,
        signals: AsyncStream<ProcessSignal> = AsyncStream { $0.finish() },
        outputFailure: @escaping @Sendable () -> String? = { nil }
    ) {
        self.environment = environment
        self.output = output
        self.errorOutput = errorOutput
        self.readInput = readInput
        self.isInteractive = isInteractive
        self.signals = signals
        self.outputFailure = outputFailure
    }

    /// The status to exit with after a command ended with `code`: 74
    /// (`EX_IOERR`), said on standard error, when what it printed could not
    /// be written; `make install` writes the man pages with `> file`, and a
    /// full disk left them empty behind a success.
    public func ending(with code: ExitCode) -> ExitCode {
        guard let failure = outputFailure() else { return code }
        errorOutput("\(Self.programName): could not write to standard output: \(failure).\n")
        return code == .success ? .ioError : code
    }

    /// The running program's name, as its own lines to a person begin.
    private static var programName: String {
        CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? "alertctl"
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
                    _ = FileDescriptorWriter.standardError.write(Array("\(programName): reading standard input; end it with Ctrl-D\n".utf8))
                }
                return (try? FileDescriptorReader.readPrefix(0, limit: inputLimit).get()).map { Data($0) }
            },
            isInteractive: TerminalDevice.isTerminal(0) && TerminalDevice.isTerminal(1),
            outputFailure: {
                // A reader that stopped reading (`| head`) is no failure of ours.
                guard let failure = FileDescriptorWriter.standardOutput.firstFailure, failure != .brokenPipe else { return nil }
                return failure.description
            }
        )
    }
}
