import Foundation
import Testing
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCommandLine
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

/// The man pages are generated from the command trees (`--generate-manpage`),
/// committed as generated, installed as generated, and render cleanly.
@Suite struct ManPageTests {
    static let groff = RepositoryFiles.tool("groff")
    static let man = RepositoryFiles.tool("man")

    /// Each tool, its page in docs/, and its page as generated in-process.
    static let pages: [(tool: String, file: String, root: any CLICommand.Type)] = [
        ("alertctl", "docs/alertctl.1", AlertctlCommand.self),
        ("alertd", "docs/alertd.8", AlertdCommand.self),
    ]

    @Test func theCommittedPagesAreWhatTheGeneratorWrites() async throws {
        for (tool, file, root) in Self.pages {
            let generated = try await TestBinaries.run(try TestBinaries.path(of: tool), ["--generate-manpage"])
            #expect(generated.exitCode == 0, "\(tool): \(generated.stderr)")
            #expect(generated.stderr == "")
            #expect(generated.stdout == ManPage.page(for: root))
            #expect(try RepositoryFiles.contents(file) == generated.stdout,
                    "\(file) differs from `\(tool) --generate-manpage`; regenerate it with `make man`")
        }
    }

    /// Every option `--help` lists, for every command, is in that command's
    /// part of the page, spelt the same, with its allowed values and default.
    @Test func everyOptionInHelpIsInThePage() async throws {
        for (tool, file, root) in Self.pages {
            let page = try RepositoryFiles.contents(file)
            for chain in Self.chains(root.configuration) {
                let path = chain.map(\.name)
                let help = try await TestBinaries.run(try TestBinaries.path(of: tool), Array(path.dropFirst()) + ["--help"])
                #expect(help.exitCode == 0)
                let labels = Self.optionLabels(inHelp: help.stdout)
                #expect(labels.contains("-h, --help"), "\(path): \(labels)")
                let part = try #require(Self.part(of: page, for: path), "\(file) has no part for '\(path.joined(separator: " "))'")
                for label in labels {
                    // `--title <title>` in help is `--title title` (in italics) on the page.
                    let spelt = label.replacingOccurrences(of: "<", with: "").replacingOccurrences(of: ">", with: "")
                    #expect(part.contains("\n" + spelt + "\n"), "\(file): '\(path.joined(separator: " "))' lacks '\(label)'")
                }
                let command = chain[chain.count - 1]
                #expect(labels.count == command.options.count + (command.version == nil ? 1 : 2))
                for option in command.options {
                    if !option.allowedValues.isEmpty {
                        #expect(part.contains("values: " + option.allowedValues.joined(separator: ", ")), "\(path) --\(option.name)")
                    }
                    if let value = option.defaultValue {
                        #expect(part.contains("default: \(value)"), "\(path) --\(option.name)")
                    }
                }
            }
        }
    }

    @Test func theInstallTargetInstallsGeneratedPages() async throws {
        let make = try #require(RepositoryFiles.tool("make"), "make is not installed")
        let dir = TemporaryDirectory()
        // RELEASE_BIN given, so make neither builds nor asks swift for the path.
        let dry = try await TestBinaries.run(
            make, ["-n", "-C", RepositoryFiles.root.path, "install", "RELEASE_BIN=/opt/bin", "DESTDIR=\(dir.path)", "SWIFT=true"])
        #expect(dry.exitCode == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("/opt/bin/alertctl --generate-manpage > \(dir.path)/usr/local/share/man/man1/alertctl.1"), "\(dry.stdout)")
        #expect(dry.stdout.contains("/opt/bin/alertd --generate-manpage > \(dir.path)/usr/local/share/man/man8/alertd.8"), "\(dry.stdout)")
        #expect(!dry.stdout.contains("docs/alertctl.1") && !dry.stdout.contains("docs/alertd.8"))
        #expect(dry.stdout.contains("/opt/bin/alertctl completion bash > \(dir.path)/usr/local/share/bash-completion/completions/alertctl"))
        #expect(dry.stdout.contains("/opt/bin/alertctl completion fish > \(dir.path)/usr/local/share/fish/vendor_completions.d/alertctl.fish"))
    }

    @Test(.enabled(if: groff != nil, "groff is not installed; man page render check skipped"))
    func pagesRenderWithoutWarnings() async throws {
        for (_, file, _) in Self.pages {
            let result = try await TestBinaries.run(
                try #require(Self.groff), ["-man", "-Tutf8", "-ww", "-z", RepositoryFiles.path(file)])
            #expect(result.exitCode == 0, "\(file)")
            #expect(result.stderr == "", "\(file):\n\(result.stderr)")
        }
    }

    @Test(.enabled(if: man != nil, "man is not installed; man -l check skipped"))
    func manReadsThem() async throws {
        for (_, file, root) in Self.pages {
            let result = try await TestBinaries.run(
                try #require(Self.man), ["-l", RepositoryFiles.path(file)],
                environment: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"])
            #expect(result.exitCode == 0, "\(file): \(result.stderr)")
            var sections = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"]
            if !root.configuration.subcommands.isEmpty { sections.append("COMMANDS") }
            for section in sections {
                #expect(result.stdout.contains("\n\(section)\n"), "\(file) has no \(section) section")
            }
            for sub in root.configuration.subcommands.map({ $0.configuration.name }) {
                #expect(result.stdout.contains("\n   \(root.configuration.name) \(sub)\n"), "\(file) has no subsection for \(sub)")
            }
        }
    }

    /// The root and every command below it, each as its chain from the root.
    static func chains(_ root: CommandConfiguration) -> [[CommandConfiguration]] {
        var result = [[root]]
        for sub in root.subcommands { result += chains(sub.configuration).map { [root] + $0 } }
        return result
    }

    /// `-t, --title <title>` for each row of a help text's OPTIONS.
    static func optionLabels(inHelp help: String) -> [String] {
        var inOptions = false
        var labels: [String] = []
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") { inOptions = line == "OPTIONS:" }
            guard inOptions, line.hasPrefix("  -") else { continue }
            let text = line.dropFirst(2)
            labels.append(String(text.range(of: "  ").map { text[..<$0.lowerBound] } ?? text))
        }
        return labels
    }

    /// The page as plain lines (fonts, escapes and requests gone), from the
    /// part for `path`: the root's OPTIONS, or a subcommand's subsection,
    /// up to the next heading.
    static func part(of page: String, for path: [String]) -> String? {
        let heading = path.count == 1 ? ".SH OPTIONS" : ".SS \"\(path.joined(separator: " "))\""
        var lines = page.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(of: heading) else { return nil }
        lines = Array(lines[(start + 1)...])
        let end = lines.firstIndex { $0.hasPrefix(".SH ") || $0.hasPrefix(".SS ") } ?? lines.count
        let text = lines[..<end].filter { !$0.hasPrefix(".") }.map { line in
            var plain = line
            for (escape, replacement) in [("\\fB", ""), ("\\fI", ""), ("\\fR", ""), ("\\-", "-"), ("\\&", ""), ("\\ ", " "), ("\\|", ""), ("\\e", "\\")] {
                plain = plain.replacingOccurrences(of: escape, with: replacement)
            }
            return plain
        }
        return "\n" + text.joined(separator: "\n") + "\n"
    }
}
