/// Runs a command-line tool end to end: parse, print help or errors, run the
/// selected command, and say how to exit. The executables' `main.swift` is
/// one call to ``main(_:arguments:context:)``.
public enum CommandLineTool {
    /// What the arguments ask for once parsed: a command to run, or the exit
    /// code after help, the version, the man page or a usage error was printed.
    public enum Start {
        case exit(ExitCode)
        case run(any CLICommand)
    }

    /// Parses `arguments` (without the program name) against `root` and runs
    /// what they select. Help, `--version` and the man page go to standard
    /// output with exit 0; usage errors go to standard error with exit 64.
    public static func main(
        _ root: any CLICommand.Type, arguments: [String], context: CommandContext
    ) async -> ExitCode {
        switch start(root, arguments: arguments, context: context) {
        case .exit(let code): return code
        case .run(let command): return await command.run(context)
        }
    }

    /// ``start(_:arguments:context:)`` with the process's own arguments, each
    /// checked to be UTF-8 text: `CommandLine.arguments` puts U+FFFD where a
    /// byte is not, and an alert went out changed without a word (a path,
    /// named wrong, was looked for and not found).
    public static func start(_ root: any CLICommand.Type, context: CommandContext) -> Start {
        var arguments: [String] = []
        for index in 1..<Int(CommandLine.argc) {
            guard let bytes = CommandLine.unsafeArgv[index] else { break }
            guard let argument = String(validatingCString: bytes) else {
                let error = CommandLineError(
                    code: .invalidValue,
                    message: "Argument \(index) is not UTF-8 text; \(root.configuration.name) reads its arguments as UTF-8. Set the terminal or the script to UTF-8 (e.g. LANG=C.UTF-8).")
                context.errorOutput(report(error, root: root))
                return .exit(.usage)
            }
            arguments.append(argument)
        }
        return start(root, arguments: arguments, context: context)
    }

    /// The part of ``main(_:arguments:context:)`` before the command runs.
    /// Synchronous, so an executable's top-level code answers `--version`,
    /// help and usage errors before its first `await`: calling the async
    /// `main` hops to Swift's task pool, whose threads (four, with
    /// libdispatch's) cost `alertctl --version` more than printing did.
    public static func start(_ root: any CLICommand.Type, arguments: [String], context: CommandContext) -> Start {
        let outcome: CommandLineParser.Outcome
        do {
            outcome = try CommandLineParser.parse(arguments, root: root)
        } catch {
            context.errorOutput(report(error, root: root))
            return .exit(.usage)
        }
        switch outcome {
        case .help(let text), .version(let text):
            context.output(text + "\n")
            return .exit(.success)
        case .manualPage(let page):
            context.output(page)
            return .exit(.success)
        case .run(let type, let parsed):
            do {
                return .run(try type.init(parsed: parsed))
            } catch {
                var error = error
                if error.commandPath.isEmpty { error.commandPath = parsed.commandPath }
                context.errorOutput(report(error, root: root))
                return .exit(.usage)
            }
        }
    }

    /// The text printed for a usage error:
    /// ```
    /// Error: Unknown option '--titel'. Did you mean '--title'?
    /// Usage: alertctl validate [--title <title>] ...
    /// See 'alertctl validate --help' for more.
    /// ```
    public static func report(_ error: CommandLineError, root: any CLICommand.Type) -> String {
        let chain = resolve(error.commandPath, root: root)
        let path = chain.map(\.name).joined(separator: " ")
        return "Error: \(error.message)\n\(HelpFormatter.usage(for: chain))\nSee '\(path) --help' for more.\n"
    }

    /// The configurations along `path`, as far as they exist.
    package static func resolve(_ path: [String], root: any CLICommand.Type) -> [CommandConfiguration] {
        var chain = [root.configuration]
        var command = root
        for name in path.dropFirst() {
            guard let sub = command.configuration.subcommand(named: name) else { break }
            chain.append(sub.configuration)
            command = sub
        }
        return chain
    }
}
