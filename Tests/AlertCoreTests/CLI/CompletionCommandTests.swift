import Foundation
import Testing
@testable import AlertdHTTP
@testable import AlertdCommandLine
@testable import AlertdDelivery
@testable import AlertdDaemon
@testable import AlertdClient

/// `alertctl completion bash|fish`: scripts generated from the command
/// tree, exercised in a real bash and a real fish.
@Suite struct CompletionCommandTests {
    /// What the completion function offers for `words` (the last one is
    /// the word being completed), in a bash that sourced `script`.
    func complete(_ words: [String], script: String) async throws -> [String] {
        let dir = TemporaryDirectory()
        let file = dir.path + "/alertctl.bash"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        // Under `set -e`, as some interactive shells run: a completion that
        // found nothing must not end the shell.
        let program = """
            set -e
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            _alertctl
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try await TestBinaries.run("/bin/bash", ["-c", program, "bash", file] + words)
        #expect(result.stderr == "")
        #expect(result.exitCode == 0, "completing \(words) ended the shell")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func theScriptIsValidBash() async throws {
        let printed = try await TestBinaries.alertctl("completion", "bash")
        #expect(printed.exitCode == 0)
        #expect(printed.stdout == BashCompletion.script(for: AlertctlCommand.self))
        let dir = TemporaryDirectory()
        try printed.stdout.write(toFile: dir.path + "/c.bash", atomically: true, encoding: .utf8)
        let check = try await TestBinaries.run("/bin/bash", ["-n", dir.path + "/c.bash"])
        #expect(check.exitCode == 0, "\(check.stderr)")
        #expect(printed.stdout.hasSuffix("complete -F _alertctl alertctl\n"))
    }

    @Test func subcommandsComplete() async throws {
        let script = try await TestBinaries.alertctl("completion", "bash").stdout
        #expect(try await complete(["alertctl", "val"], script: script) == ["validate"])
        let all = try await complete(["alertctl", ""], script: script)
        for name in AlertctlCommand.configuration.subcommands.map({ $0.configuration.name }) + ["help"] {
            #expect(all.contains(name), "\(name) missing from \(all)")
        }
        #expect(try await complete(["alertctl", "help", "ren"], script: script) == ["render"])
        #expect(try await complete(["alertctl", "--v"], script: script) == ["--version"])
        // Connection options may come before the command; their values are skipped.
        #expect(try await complete(["alertctl", "--so"], script: script) == ["--socket"])
        #expect(try await complete(["alertctl", "--socket", "/tmp/a.sock", "li"], script: script) == ["list"])
        #expect(try await complete(["alertctl", "--url", "http://h:1", "list", "--st"], script: script) == ["--state"])
    }

    @Test func allowedValuesComplete() async throws {
        let script = try await TestBinaries.alertctl("completion", "bash").stdout
        #expect(try await complete(["alertctl", "render", "--to", ""], script: script) == PresenterRegistry.documentedTypes.map { $0.typeName })
        #expect(try await complete(["alertctl", "render", "-t", "Disk full", "--to", "w"], script: script) == ["webhook"])
        // `--to=` arrives as `--to`, `=` when '=' breaks words, as it does by default.
        #expect(try await complete(["alertctl", "render", "--to", "=", "l"], script: script) == ["log"])
        #expect(try await complete(["alertctl", "render", "--color", ""], script: script) == ["auto", "always", "never"])
        // Values the command checks itself are offered too.
        #expect(try await complete(["alertctl", "send", "--severity", ""], script: script) == ["info", "warning", "error", "critical"])
        #expect(try await complete(["alertctl", "send", "-s", "c"], script: script) == ["critical"])
        #expect(try await complete(["alertctl", "completion", ""], script: script) == ["bash", "fish"])
        #expect(try await complete(["alertctl", "completion", "--"], script: script) == ["--help"])
        // A free-text value offers nothing; the word after it is an option again.
        #expect(try await complete(["alertctl", "render", "--title", ""], script: script) == [])
        #expect(try await complete(["alertctl", "render", "--title", "--to", "--col"], script: script) == ["--color"])
    }

    @Test func aValueOfTheUsersOwnAfterAnEqualsSignOffersNothing() async throws {
        let script = try await TestBinaries.alertctl("completion", "bash").stdout
        // `--label host=` arrives as `--label`, `host`, `=`: it offered every option, and TAB wrote `host=--`.
        #expect(try await complete(["alertctl", "send", "--label", "host", "=", ""], script: script) == [])
        #expect(try await complete(["alertctl", "send", "--label", "host", "=", "d"], script: script) == [])
        #expect(try await complete(["alertctl", "silence", "add", "alertname", "=", ""], script: script) == [])
        #expect(try await complete(["alertctl", "send", "--severity", "=", "c"], script: script) == ["critical"])
    }

    @Test func nothingFoundDoesNotEndASetEShell() async throws {
        let script = try await TestBinaries.alertctl("completion", "bash").stdout
        #expect(try await complete(["alertctl", "send", "--severity", "zz"], script: script) == [])
        #expect(try await complete(["alertctl", "zzz"], script: script) == [])
        #expect(try await complete(["alertctl", "send", "--zz"], script: script) == [])
        #expect(try await complete(["alertctl", "--token-file", "/nonexistent/x"], script: script) == [])
    }

    @Test func fileNamesWithSpacesStayWhole() async throws {
        let script = try await TestBinaries.alertctl("completion", "bash").stdout
        let dir = TemporaryDirectory()
        for name in ["my token", "my-other"] { try "x".write(toFile: dir.path + "/" + name, atomically: true, encoding: .utf8) }
        #expect(try await complete(["alertctl", "--token-file", dir.path + "/my"], script: script).sorted()
            == [dir.path + "/my token", dir.path + "/my-other"].sorted())
    }

    @Test func helpAndArgumentsCompleteWhatIsLeft() async throws {
        let script = try await TestBinaries.alertctl("completion", "bash").stdout
        let silence = try #require(AlertctlCommand.configuration.subcommand(named: "silence"))
        #expect(try await complete(["alertctl", "help", "silence", ""], script: script)
            == silence.configuration.subcommands.map { $0.configuration.name })
        #expect(try await complete(["alertctl", "completion", "bash", ""], script: script) == [])
    }

    @Test func optionsFollowTheCommandTree() async throws {
        let script = try await TestBinaries.alertctl("completion", "bash").stdout
        let validate = try await complete(["alertctl", "validate", "--"], script: script)
        let expected = ValidateCommand.configuration.options.map { "--\($0.name)" } + ["--help"]
        #expect(validate == expected)
        #expect(try await complete(["alertctl", "validate", "--j"], script: script) == ["--json"])
        #expect(!(try await complete(["alertctl", "render", "--j"], script: script)).contains("--json"))
    }

    @Test func aNewCommandIsCompletedWithoutTouchingTheGenerator() async throws {
        struct Probe: CLICommand {
            static let configuration = CommandConfiguration(
                name: "alertctl", abstract: "x",
                subcommands: [Deploy.self])
            init(parsed: ParsedCommand) {}
            func run(_ context: CommandContext) async -> ExitCode { .success }
        }
        struct Deploy: CLICommand {
            static let configuration = CommandConfiguration(
                name: "deploy", abstract: "x",
                options: [.value("stage", short: "S", help: "x", allowedValues: ["canary", "full"]), .flag("dry-run", help: "x")])
            init(parsed: ParsedCommand) {}
            func run(_ context: CommandContext) async -> ExitCode { .success }
        }
        let script = BashCompletion.script(for: Probe.self)
        #expect(try await complete(["alertctl", "de"], script: script) == ["deploy"])
        #expect(try await complete(["alertctl", "deploy", "-S", "c"], script: script) == ["canary"])
        #expect(try await complete(["alertctl", "deploy", "--d"], script: script) == ["--dry-run"])
    }

    @Test func bashAndFishAreSupported() async throws {
        let zsh = try await TestBinaries.alertctl("completion", "zsh")
        #expect(zsh.exitCode == 64)
        #expect(zsh.stderr.hasPrefix("Error: The value 'zsh' is invalid for '<shell>': give one of bash, fish."))
        #expect(try await TestBinaries.alertctl("completion").exitCode == 64)
    }

    // MARK: fish

    static let fish = RepositoryFiles.tool("fish")

    /// What a real fish offers for the command line `line` (the cursor at
    /// its end) with `script` sourced: each candidate without its description.
    func completeInFish(_ line: String, script: String) async throws -> [String] {
        let dir = TemporaryDirectory()
        let file = dir.path + "/alertctl.fish"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await TestBinaries.run(try #require(Self.fish), ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", file, line])
        #expect(result.stderr == "", "\(line)")
        #expect(result.exitCode == 0, "\(line)")
        return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t", maxSplits: 1).first ?? "") }
    }

    @Test(.enabled(if: fish != nil, "fish is not installed (scripts/install-deps.sh --test installs it)"))
    func fishCompletesTheCommandTree() async throws {
        let printed = try await TestBinaries.alertctl("completion", "fish")
        #expect(printed.exitCode == 0)
        let script = printed.stdout
        #expect(script == FishCompletion.script(for: AlertctlCommand.self))
        let dir = TemporaryDirectory()
        try script.write(toFile: dir.path + "/c.fish", atomically: true, encoding: .utf8)
        let check = try await TestBinaries.run(try #require(Self.fish), ["--no-config", "-n", dir.path + "/c.fish"])
        #expect(check.exitCode == 0, "\(check.stderr)")

        #expect(try await completeInFish("alertctl val", script: script) == ["validate"])
        let all = try await completeInFish("alertctl ", script: script)
        #expect(Set(all) == Set(AlertctlCommand.configuration.subcommands.map { $0.configuration.name } + ["help"]), "\(all)")
        #expect(try await completeInFish("alertctl help ren", script: script) == ["render"])
        let silence = try #require(AlertctlCommand.configuration.subcommand(named: "silence"))
        #expect(Set(try await completeInFish("alertctl help silence ", script: script)) == Set(silence.configuration.subcommands.map { $0.configuration.name }))
        #expect(try await completeInFish("alertctl --so", script: script) == ["--socket"])
        #expect(try await completeInFish("alertctl --socket /tmp/a.sock li", script: script) == ["list"])
        #expect(try await completeInFish("alertctl --url http://h:1 list --st", script: script) == ["--state"])
        // Values: allowed ones, and nothing for free text.
        #expect(try await completeInFish("alertctl send --severity c", script: script) == ["critical"])
        #expect(try await completeInFish("alertctl send -s ", script: script).sorted() == ["critical", "error", "info", "warning"])
        #expect(try await completeInFish("alertctl send --severity=w", script: script) == ["--severity=warning"])
        #expect(try await completeInFish("alertctl render --to w", script: script) == ["webhook"])
        #expect(try await completeInFish("alertctl completion ", script: script) == CompletionCommand.shells)
        #expect(try await completeInFish("alertctl send --title ", script: script) == [])
        // A value that looks like an option is one, as the parser reads it.
        #expect(try await completeInFish("alertctl render --title --to --col", script: script) == ["--color"])
        // Options follow the command tree.
        #expect(try await completeInFish("alertctl validate --j", script: script) == ["--json"])
        #expect(!(try await completeInFish("alertctl render --j", script: script)).contains("--json"))
        // Files where an option names one, spaces and all.
        for name in ["my token", "my-other"] { try "x".write(toFile: dir.path + "/" + name, atomically: true, encoding: .utf8) }
        #expect(try await completeInFish("alertctl --token-file \(dir.path)/my", script: script).sorted()
            == [dir.path + "/my token", dir.path + "/my-other"].sorted())
    }
}
