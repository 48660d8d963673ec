import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdSQLite
@testable import AlertdHTTP
@testable import AlertdCommandLine
@testable import AlertdAPI
@testable import AlertdClient

/// A leaf command with one option of each kind and a repeating argument.
struct SampleCommand: CLICommand {
    static let configuration = CommandConfiguration(
        name: "sample",
        abstract: "Exercise the parser.",
        discussion: "A longer text that explains what the command is for, long enough that it has to wrap at eighty columns.",
        options: [
            .value("title", short: "t", help: "The headline."),
            .repeatable("label", short: "l", valueName: "name=value", help: "A label; repeat for more."),
            .flag("json", short: "j", help: "Print JSON."),
            .flag("quiet", short: "q", help: "Print nothing at all, not even the things that a very long help text would mention."),
            .value("to", valueName: "presenter", help: "Where to.", default: "terminal", allowedValues: ["terminal", "log"]),
            .value("a-rather-long-option-name", valueName: "value", help: "Shows how long labels wrap."),
        ],
        arguments: [CommandArgument("files", help: "Files to read.", isOptional: true, isRepeating: true)])

    let parsed: ParsedCommand
    init(parsed: ParsedCommand) { self.parsed = parsed }
    func run(_ context: CommandContext) async -> ExitCode {
        context.output("title=\(parsed.value("title") ?? "-")\n")
        return .success
    }
}

struct NeedsCommand: CLICommand {
    static let configuration = CommandConfiguration(
        name: "needs", abstract: "Needs an id.", arguments: [CommandArgument("id", help: "The alert id.")])
    init(parsed: ParsedCommand) throws(CommandLineError) {
        if parsed.argument("id") == "bad" { throw .invalidCombination("The id 'bad' is not allowed here.") }
    }
    func run(_ context: CommandContext) async -> ExitCode { .success }
}

/// A group with an option of its own that one subcommand shares.
struct GroupRoot: CLICommand {
    static let whereOption = CommandOption.value("where", short: "w", valueName: "place", help: "Where to look.")
    static let configuration = CommandConfiguration(
        name: "group", abstract: "A group with options.", version: "2.0",
        options: [whereOption, .flag("verbose", short: "v", help: "Say more.")],
        subcommands: [SharesCommand.self, SampleCommand.self])
    init(parsed: ParsedCommand) {}
    func run(_ context: CommandContext) async -> ExitCode { .success }
}

struct SharesCommand: CLICommand {
    static let configuration = CommandConfiguration(
        name: "shares", abstract: "Takes the group's --where.",
        options: [GroupRoot.whereOption, .value("title", short: "t", help: "A title.")])
    init(parsed: ParsedCommand) {}
    func run(_ context: CommandContext) async -> ExitCode { .success }
}

struct SampleRoot: CLICommand {
    static let configuration = CommandConfiguration(
        name: "tool", abstract: "A sample tool.", version: "1.2.3",
        subcommands: [SampleCommand.self, NeedsCommand.self])
    init(parsed: ParsedCommand) {}
    func run(_ context: CommandContext) async -> ExitCode { .success }
}

@Suite struct CommandLineParserTests {
    func parse(_ arguments: [String]) throws -> ParsedCommand {
        guard case .run(_, let parsed) = try CommandLineParser.parse(arguments, root: SampleRoot.self) else {
            throw CommandLineError(code: .invalidValue, message: "not a run outcome")
        }
        return parsed
    }

    func failure(_ arguments: [String]) -> CommandLineError? {
        do {
            _ = try CommandLineParser.parse(arguments, root: SampleRoot.self)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsValuesInEveryForm() throws {
        #expect(try parse(["sample", "--title", "a b"]).value("title") == "a b")
        #expect(try parse(["sample", "--title=a=b"]).value("title") == "a=b")
        #expect(try parse(["sample", "-t", "x"]).value("title") == "x")
        #expect(try parse(["sample", "-tx"]).value("title") == "x")
        #expect(try parse(["sample", "--title", "-"]).value("title") == "-")
        #expect(try parse(["sample", "--title", "-5"]).value("title") == "-5")
        #expect(try parse(["sample", "--title="]).value("title") == "")
        #expect(try parse(["sample"]).value("title") == nil)
    }

    @Test func aSingleValueOptionGivenTwiceIsAnError() async throws {
        #expect(failure(["sample", "--title", "one", "--title", "two"]) == CommandLineError(
            code: .repeatedOption, message: "'--title <title>' takes one value but was given twice ('one', 'two'); give it once.",
            commandPath: ["tool", "sample"]))
        #expect(failure(["sample", "-tone", "--title=two", "-t", "three"])?.message
            == "'--title <title>' takes one value but was given 3 times ('one', 'two', 'three'); give it once.")
        // With a default too: giving it once is what counts.
        #expect(failure(["sample", "--to", "log", "--to", "log"])?.code == .repeatedOption)
        #expect(try parse(["sample", "--to", "log"]).value("to") == "log")
        // Repeatable options and flags may repeat.
        #expect(try parse(["sample", "-l", "a=1", "-l", "a=1"]).values("label") == ["a=1", "a=1"])
        #expect(try parse(["sample", "--json", "-j"]).flag("json"))
        // As a usage error: exit 64, the message and the usage line.
        let capture = OutputCapture()
        let code = await CommandLineTool.main(SampleRoot.self, arguments: ["sample", "-t", "a", "-t", "b"], context: capture.context())
        #expect(code == .usage)
        #expect(capture.errorOutput.hasPrefix("Error: '--title <title>' takes one value but was given twice ('a', 'b'); give it once.\nUsage: tool sample "))
    }

    @Test func aGroupsOptionsMayComeBeforeTheSubcommand() throws {
        func parsed(_ arguments: [String]) throws -> ParsedCommand {
            guard case .run(_, let parsed) = try CommandLineParser.parse(arguments, root: GroupRoot.self) else {
                throw CommandLineError(code: .invalidValue, message: "not a run outcome")
            }
            return parsed
        }
        func catching(_ arguments: [String]) -> CommandLineError? {
            do {
                _ = try CommandLineParser.parse(arguments, root: GroupRoot.self)
                return nil
            } catch {
                return error
            }
        }
        for arguments in [["--where", "here", "shares"], ["--where=here", "shares"], ["-w", "here", "shares"],
                          ["-where", "shares"], ["shares", "--where", "here"]] {
            let result = try parsed(arguments)
            #expect(result.commandPath == ["group", "shares"], "\(arguments)")
            #expect(result.value("where") == "here", "\(arguments)")
        }
        #expect(try parsed(["--where", "here", "shares", "-t", "x"]).value("title") == "x")
        // Before and after: the option was given twice.
        let twice = try #require(catching(["-w", "a", "shares", "-w", "b"]))
        #expect(twice.code == .repeatedOption)
        #expect(twice.commandPath == ["group", "shares"])
        // A subcommand that does not declare the option does not get it.
        #expect(catching(["--where", "here", "sample"]) == CommandLineError(
            code: .unknownOption,
            message: "'--where' before the subcommand is an option of 'group' that 'group sample' does not take; "
                + "give the subcommand's options after it.",
            commandPath: ["group", "sample"]))
        #expect(catching(["-v", "shares"])?.message.hasPrefix("'--verbose' before the subcommand") == true)
        // Alone, they are the group's own.
        #expect(try parsed(["--where", "here"]).commandPath == ["group"])
        // Errors in them name the group; unknown options stop at the group.
        #expect(catching(["--where"]) == CommandLineError(
            code: .missingValue, message: "Missing value for '--where <place>'", commandPath: ["group"]))
        #expect(catching(["--title", "x", "shares"])?.message.hasPrefix("Unknown option '--title'.") == true)
        #expect(catching(["--title", "x", "shares"])?.commandPath == ["group"])
        // Help and version still win.
        guard case .version(let version) = try CommandLineParser.parse(["-w", "x", "--version"], root: GroupRoot.self),
              case .help(let help) = try CommandLineParser.parse(["-w", "x", "shares", "--help"], root: GroupRoot.self) else {
            Issue.record("no version or help")
            return
        }
        #expect(version == "group 2.0")
        guard case .help(let groupHelp) = try CommandLineParser.parse(["--where", "--help"], root: GroupRoot.self) else {
            Issue.record("no help when the group option lacks its value")
            return
        }
        #expect(groupHelp.hasPrefix("OVERVIEW: A group with options."))
        #expect(help.hasPrefix("OVERVIEW: Takes the group's --where."))
        #expect(HelpFormatter.usage(for: [GroupRoot.configuration]) == "Usage: group [--where <place>] [--verbose] <subcommand>")

    }

    @Test func keepsRepeatedValuesInOrder() throws {
        let parsed = try parse(["sample", "-l", "a=1", "--label", "b=2", "--label=c=3", "-ld=4"])
        #expect(parsed.values("label") == ["a=1", "b=2", "c=3", "d=4"])
        #expect(try parse(["sample"]).values("label") == [])
    }

    @Test func readsFlagsAlsoCombined() throws {
        let parsed = try parse(["sample", "-jq"])
        #expect(parsed.flag("json") && parsed.flag("quiet"))
        let withValue = try parse(["sample", "-jt", "x"])
        #expect(withValue.flag("json") && !withValue.flag("quiet") && withValue.value("title") == "x")
        #expect(try parse(["sample", "--json"]).flag("json"))
    }

    @Test func defaultsCountAsValuesButNotAsGiven() throws {
        let parsed = try parse(["sample"])
        #expect(parsed.value("to") == "terminal")
        #expect(!parsed.isGiven("to"))
        #expect(try parse(["sample", "--to", "log"]).isGiven("to"))
    }

    @Test func positionalsAndTerminator() throws {
        let parsed = try parse(["sample", "a", "--json", "b", "--", "--title", "-x"])
        #expect(parsed.arguments == ["a", "b", "--title", "-x"])
        #expect(parsed.argumentValues("files") == ["a", "b", "--title", "-x"])
        #expect(parsed.value("title") == nil)
        #expect(parsed.flag("json"))
        #expect(try parse(["needs", "0197"]).argument("id") == "0197")
    }

    @Test func unknownOptionsSuggestTheClosest() {
        #expect(failure(["sample", "--titel", "x"]) == CommandLineError(
            code: .unknownOption, message: "Unknown option '--titel'. Did you mean '--title'?",
            commandPath: ["tool", "sample"]))
        #expect(failure(["sample", "--jsno"])?.message == "Unknown option '--jsno'. Did you mean '--json'?")
        #expect(failure(["sample", "--hlep"])?.message == "Unknown option '--hlep'. Did you mean '--help'?")
        #expect(failure(["sample", "--zzzzzz"])?.message == "Unknown option '--zzzzzz'.")
        #expect(failure(["sample", "-x"])?.message == "Unknown option '-x'.")
        #expect(failure(["sample", "-jx"])?.code == .unknownOption)
    }

    @Test func missingAndUnexpectedValues() {
        #expect(failure(["sample", "--title"]) == CommandLineError(
            code: .missingValue, message: "Missing value for '--title <title>'", commandPath: ["tool", "sample"]))
        #expect(failure(["sample", "--title", "--json"])?.code == .missingValue)
        #expect(failure(["sample", "-t"])?.code == .missingValue)
        #expect(failure(["sample", "--label", "--", "x"])?.message == "Missing value for '--label <name=value>'")
        #expect(failure(["sample", "--json=yes"])?.message == "The flag '--json' does not take a value; remove '=yes'.")
        #expect(failure(["sample", "--to", "fax"])?.message
            == "The value 'fax' is invalid for '--to <presenter>': use one of 'terminal', 'log'.")
    }

    /// `--message "--- see log ---"`: getopt takes the next word as the
    /// value; a word that could not be an option is one here too.
    @Test func aValueMayStartWithADashWhenItCannotBeAnOption() throws {
        #expect(try parse(["sample", "--title", "--- see log ---"]).value("title") == "--- see log ---")
        #expect(try parse(["sample", "-t", "-rf was the culprit"]).value("title") == "-rf was the culprit")
        #expect(try parse(["sample", "--title", "---"]).value("title") == "---")
        #expect(try parse(["sample", "--title=-rf"]).value("title") == "-rf")
        #expect(try parse(["sample", "--label", "-x=1 2"]).values("label") == ["-x=1 2"])
        // A word that could be an option is still not taken; the error says how.
        #expect(failure(["sample", "--title", "-rf"])?.message
            == "Missing value for '--title <title>'. To give '-rf' as its value, write --title='-rf'.")
        #expect(failure(["sample", "--title", "--json"])?.message == "Missing value for '--title <title>'")
        #expect(failure(["sample", "--title", "-j"])?.message == "Missing value for '--title <title>'")
    }

    /// Suggestions never name the word typed, and `help help` is help.
    @Test func errorsDoNotSuggestTheWordTyped() throws {
        guard case .help(let text) = try CommandLineParser.parse(["help", "help"], root: SampleRoot.self) else {
            Issue.record("no help for help help")
            return
        }
        #expect(text.hasPrefix("OVERVIEW: A sample tool."))
        #expect(failure(["--", "sample"])?.message == "Unexpected argument 'sample'")
        #expect(failure(["sample", "--help=x"])?.message == "The flag '--help' does not take a value; remove '=x'.")
        #expect(CommandLineError.unknownSubcommand("list", suggestion: "list").message == "Unknown subcommand 'list'.")
        #expect(CommandLineError.unknownOption("--help", suggestion: "--help").message == "Unknown option '--help'.")
    }

    @Test func argumentsAreCounted() {
        #expect(failure(["needs"]) == CommandLineError(
            code: .missingArgument, message: "Missing expected argument '<id>'", commandPath: ["tool", "needs"]))
        #expect(failure(["needs", "a", "b"])?.message == "Unexpected argument 'b'")
    }

    @Test func unknownSubcommandsSuggestTheClosest() {
        #expect(failure(["smaple"]) == CommandLineError(
            code: .unknownSubcommand, message: "Unknown subcommand 'smaple'. Did you mean 'sample'?", commandPath: ["tool"]))
        #expect(failure(["help", "nedes"])?.message == "Unknown subcommand 'nedes'. Did you mean 'needs'?")
        #expect(failure(["frobnicate"])?.message == "Unknown subcommand 'frobnicate'.")
    }

    @Test func helpAndVersionWin() throws {
        let sampleHelp = HelpFormatter.help(for: [SampleRoot.configuration, SampleCommand.configuration])
        for arguments in [["sample", "--help"], ["sample", "-h"], ["help", "sample"], ["sample", "--titel", "x", "-h"]] {
            guard case .help(let text) = try CommandLineParser.parse(arguments, root: SampleRoot.self) else {
                Issue.record("no help for \(arguments)")
                continue
            }
            #expect(text == sampleHelp)
        }
        guard case .help(let rootHelp) = try CommandLineParser.parse(["help"], root: SampleRoot.self) else {
            Issue.record("no root help")
            return
        }
        #expect(rootHelp.hasPrefix("OVERVIEW: A sample tool."))
        guard case .version(let version) = try CommandLineParser.parse(["--version"], root: SampleRoot.self) else {
            Issue.record("no version")
            return
        }
        #expect(version == "tool 1.2.3")
        // After `--`, `-h` is an ordinary word.
        #expect(try parse(["sample", "--", "-h"]).arguments == ["-h"])
    }

    @Test func helpTextIsPinned() {
        #expect(HelpFormatter.help(for: [SampleRoot.configuration, SampleCommand.configuration]) == """
            OVERVIEW: Exercise the parser.

            A longer text that explains what the command is for, long enough that it has to
            wrap at eighty columns.

            USAGE: tool sample [--title <title>] [--label <name=value> ...] [--json]
                               [--quiet] [--to <presenter>]
                               [--a-rather-long-option-name <value>] [<files> ...]

            ARGUMENTS:
              <files>                 Files to read.

            OPTIONS:
              -t, --title <title>     The headline.
              -l, --label <name=value>
                                      A label; repeat for more.
              -j, --json              Print JSON.
              -q, --quiet             Print nothing at all, not even the things that a very
                                      long help text would mention.
              --to <presenter>        Where to. (values: terminal, log; default: terminal)
              --a-rather-long-option-name <value>
                                      Shows how long labels wrap.
              -h, --help              Show help information.
            """)
        #expect(HelpFormatter.help(for: [SampleRoot.configuration]) == """
            OVERVIEW: A sample tool.

            USAGE: tool <subcommand>

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.

            SUBCOMMANDS:
              sample                  Exercise the parser.
              needs                   Needs an id.
              help                    Show subcommand help information.

              See 'tool help <subcommand>' for detailed help.
            """)
    }

    @Test func toolReportsUsageErrors() async {
        let capture = OutputCapture()
        let code = await CommandLineTool.main(SampleRoot.self, arguments: ["needs"], context: capture.context())
        #expect(code == .usage)
        #expect(capture.output == "")
        #expect(capture.errorOutput == """
            Error: Missing expected argument '<id>'
            Usage: tool needs <id>
            See 'tool needs --help' for more.

            """)
    }

    @Test func toolReportsValidationErrorsFromCommands() async {
        let capture = OutputCapture()
        let code = await CommandLineTool.main(SampleRoot.self, arguments: ["needs", "bad"], context: capture.context())
        #expect(code == .usage)
        #expect(capture.errorOutput.hasPrefix("Error: The id 'bad' is not allowed here.\nUsage: tool needs <id>\n"))
    }

    @Test func toolRunsCommandsAndPrintsHelp() async {
        let run = OutputCapture()
        #expect(await CommandLineTool.main(SampleRoot.self, arguments: ["sample", "-t", "hi"], context: run.context()) == .success)
        #expect(run.output == "title=hi\n")
        let help = OutputCapture()
        #expect(await CommandLineTool.main(SampleRoot.self, arguments: ["--help"], context: help.context()) == .success)
        #expect(help.output == HelpFormatter.help(for: [SampleRoot.configuration]) + "\n")
        #expect(help.errorOutput == "")
    }

    @Test func editDistance() {
        #expect("titel".editDistance(to: "title") == 1)
        #expect("".editDistance(to: "abc") == 3)
        #expect("kitten".editDistance(to: "sitting") == 3)
        #expect("titel".closest(in: ["message", "title"]) == "title")
        #expect("x".closest(in: ["to"]) == nil)
    }
}
