import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdSQLite
@testable import AlertdCommandLine
@testable import AlertdClient

/// The options → builder step, run in-process through `alertctl validate`.
@Suite struct AlertCompositionOptionsTests {
    func validate(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) async -> (ExitCode, OutputCapture) {
        let capture = OutputCapture()
        let code = await CommandLineTool.main(
            AlertctlCommand.self, arguments: ["validate"] + arguments,
            context: capture.context(environment: environment, input: input))
        return (code, capture)
    }

    @Test func errorsNameTheOptionThatWasTyped() async {
        let (code, capture) = await validate(["-t", "x", "-l", "novalue", "-s", "loud", "--expires", "30x", "--cancel", "nolabel"])
        #expect(code == .dataError)
        let lines = capture.errorOutput.split(separator: "\n")
        let prefixes = [
            "error: labels: `--label` needs the form name=value, got `novalue`.",
            "error: severity: `--severity` is not a severity: `loud`.",
            "error: cancel: `--cancel` needs the form Label=URL",
            "error: expires_after: `--expires` is not a duration: `30x`.",
        ]
        #expect(lines.count == prefixes.count)
        for (line, prefix) in zip(lines, prefixes) { #expect(line.hasPrefix(prefix)) }
    }

    /// A URL with a query and no label was split at the query's `=`:
    /// "`b` is not a valid URL".
    @Test func aURLWithoutALabelIsAskedForItsLabel() async {
        let (code, capture) = await validate(["-t", "x", "--confirm", "https://ops.example/h?a=b"])
        #expect(code == .dataError)
        #expect(capture.errorOutput.hasPrefix("error: confirm: `--confirm` needs the form Label=URL, e.g. \"Restart=https://ops.example/restart\"; got `https://ops.example/h?a=b`."),
                "\(capture.errorOutput)")
        let (labelled, _) = await validate(["-t", "x", "--confirm", "Go=https://ops.example/h?a=b"])
        #expect(labelled == .success)
    }

    @Test func unreadableStandardInputIsReported() async {
        let (code, capture) = await validate(["-t", "x", "-m", "-"])
        #expect(code == .dataError)
        #expect(capture.errorOutput == "error: message: `--message -` could not read standard input; pipe the message in or give it as text. [invalid_type]\n")
    }

    /// Bytes that are not UTF-8 were decoded with U+FFFD in their place
    /// and the alert sent changed, without a word.
    @Test func standardInputThatIsNotUTF8IsRefused() async {
        let capture = OutputCapture()
        let code = await CommandLineTool.main(
            AlertctlCommand.self, arguments: ["validate", "-t", "x", "-m", "-"],
            context: capture.context(bytes: Data("bad ".utf8) + [0xFF, 0xFE]))
        #expect(code == .dataError)
        #expect(capture.errorOutput == "error: message: Standard input is not UTF-8 text; convert it first (e.g. iconv -f LATIN1 -t UTF-8). [not_utf8]\n")
    }

    /// The same for an argument, read from the process's own argv.
    @Test func anArgumentThatIsNotUTF8IsRefused() async throws {
        let r = try await TestBinaries.run("/bin/sh", ["-c", #"exec "$0" validate -t "$(printf 'bad \377')""#, try TestBinaries.alertctl])
        #expect(r.exitCode == 64, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: Argument 3 is not UTF-8 text; alertctl reads its arguments as UTF-8."), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    /// Past the widest limit a daemon may be configured to, alertctl says
    /// so, not "the limit is 1000000" of a daemon whose limit is 8192.
    @Test func aClientsLimitIsNamedAsTheWidestAnyDaemonTakes() throws {
        let long = AlertSpec.Builder().title("x").message(String(repeating: "m", count: 1_000_001))
        let widest = try #require(long.build(limits: .widestConfigurable).failure)
        #expect(widest.errors[0].message == "The message has 1000001 characters; no alertd takes more than 1000000 (its `limits.max_message_length`, 8192 unless set). Link to the details instead of pasting them.")
        let own = try #require(long.build(limits: .default).failure)
        #expect(own.errors[0].message.hasPrefix("The message has 1000001 characters; the limit is 8192."))
    }

    /// With --json the alert is one line, as every command's JSON is; it
    /// was laid out over lines (`"labels" : {` and a blank line).
    @Test func validateWithJSONPrintsOneLine() async {
        let (code, capture) = await validate(["-t", "x", "--json"])
        #expect(code == .success)
        #expect(capture.output == #"{"labels":{},"severity":"info","title":"x"}"# + "\n")
    }

    @Test func standardInputLosesOnlyTrailingNewlines() async throws {
        let (code, capture) = await validate(["-t", "x", "-m", "-"], input: "\n  indented\n\n")
        #expect(code == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(capture.output.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "\n  indented")
    }

    @Test func setNeedsNameEqualsValue() async {
        let (code, capture) = await validate(["--template", "t", "--set", "=x"])
        #expect(code == .usage)
        #expect(capture.errorOutput.hasPrefix("Error: The value '=x' is invalid for '--set <name=value>': use the form name=value, e.g. host=db1.\n"))
        // Twice, one value would be dropped unseen.
        let (twice, told) = await validate(["--template", "t", "--set", "h=1", "--set", "h=2"])
        #expect(twice == .usage)
        #expect(told.errorOutput.hasPrefix("Error: The value 'h=2' is invalid for '--set <name=value>': 'h' is already set; give each placeholder once.\n"), "\(told.errorOutput)")
    }

    @Test func templateNeedsAFile() async {
        let (code, capture) = await validate(["--template", "disk", "--set", "host=db1", "-t", "x"], environment: ["ALERTD_TEMPLATES": ""])
        #expect(code == .dataError)
        #expect(capture.errorOutput == "error: template: `--template disk` needs a template file: give `--templates FILE` or set ALERTD_TEMPLATES. [unknown_template]\n")
    }

    @Test func aTemplateThatCannotBeReadIsTheOnlyProblemNamed() async {
        let (code, capture) = await validate(["--template", "disk", "--templates", "/nonexistent/t.json"])
        #expect(code == .dataError)
        #expect(capture.errorOutput.hasPrefix("error: templates: /nonexistent/t.json: "), "\(capture.errorOutput)")
        #expect(!capture.errorOutput.contains("missing_title"), "\(capture.errorOutput)")
        // Without a template, a missing title is still said.
        let (plain, untitled) = await validate(["-m", "no title"])
        #expect(plain == .dataError)
        #expect(untitled.errorOutput.contains("[missing_title]"))
    }

    @Test func optionsMapOntoTheBuilder() throws {
        let options = AlertCompositionOptions(
            title: "T", message: "M", severity: "error", labels: ["a=1", "b=2"], confirm: "Yes=https://a.example/y",
            cancel: "No=https://a.example/n", dedupKey: "k", expires: "1h")
        let spec = try options.build(context: OutputCapture().context()).get()
        #expect(spec == (try AlertSpec.Builder().title("T").message("M").severity(.error).labels(["a": "1", "b": "2"])
            .confirm("Yes", handler: "https://a.example/y").cancel("No", handler: "https://a.example/n")
            .dedupKey("k").expires(after: .hours(1)).build().get()))
    }
}
