import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCommandLine
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdServices

/// Where the repository's files are, from this file's path.
enum RepositoryFiles {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static func contents(_ relative: String) throws -> String { try String(contentsOfFile: path(relative), encoding: .utf8) }

    /// The first executable called `name` on the PATH, if any.
    static func tool(_ name: String) -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin", "/bin"]
        return dirs.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// The shipped systemd units: they verify, they are hardened, and they agree
/// with the daemon and the default config.
@Suite struct SystemdUnitTests {
    static let analyze = RepositoryFiles.tool("systemd-analyze")
    static let units = ["alertd.service", "alertd.socket", "alertd-http.socket"]

    /// `key=value` lines of a unit file, in order.
    func directives(_ unit: String) throws -> [(key: String, value: String)] {
        try RepositoryFiles.contents("systemd/" + unit).split(separator: "\n").compactMap { line in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.hasPrefix("#"), !text.hasPrefix("["), let eq = text.firstIndex(of: "=") else { return nil }
            return (String(text[..<eq]), String(text[text.index(after: eq)...]))
        }
    }

    @Test(.enabled(if: analyze != nil, "systemd-analyze is not installed; unit verification skipped"))
    func unitsVerifyCleanly() async throws {
        // A copy whose ExecStart= is the built binary: verify checks that it exists.
        let dir = TemporaryDirectory()
        let alertd = try TestBinaries.path(of: "alertd")
        for unit in Self.units {
            let text = try RepositoryFiles.contents("systemd/" + unit)
                .replacingOccurrences(of: "/usr/local/bin/alertd", with: alertd)
            try text.write(toFile: dir.path + "/" + unit, atomically: true, encoding: .utf8)
        }
        // Documentation=man:… is checked with man(1): point it at our pages.
        var arguments = ["verify"]
        var environment: [String: String] = [:]
        if RepositoryFiles.tool("man") != nil {
            for (page, section) in [("alertd.8", "man8"), ("alertctl.1", "man1")] {
                try FileManager.default.createDirectory(atPath: "\(dir.path)/man/\(section)", withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: RepositoryFiles.path("docs/" + page), toPath: "\(dir.path)/man/\(section)/\(page)")
            }
            environment["MANPATH"] = dir.path + "/man"
        } else {
            arguments.append("--man=no")
        }
        let result = try await TestBinaries.run(
            try #require(Self.analyze), arguments + Self.units.map { dir.path + "/" + $0 }, environment: environment)
        #expect(result.exitCode == 0)
        // verify exits 0 even for unknown directives; it only complains on stderr.
        #expect(result.stderr == "", "systemd-analyze verify:\n\(result.stderr)")
    }

    @Test(.enabled(if: analyze != nil, "systemd-analyze is not installed; security score skipped"))
    func theServiceScoresAtMostOnePointFive() async throws {
        let result = try await TestBinaries.run(
            try #require(Self.analyze),
            ["security", "--offline=true", "--threshold=15", RepositoryFiles.path("systemd/alertd.service")])
        #expect(result.exitCode == 0, "\(result.stdout)\n\(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let words = line.split(separator: ":").last?.split(separator: " ") ?? []
        let score = try #require(words.first.flatMap { Double($0) }, "cannot read the score in: \(line)")
        #expect(score <= 1.5, "exposure \(score):\n\(result.stdout)")
    }

    @Test func theUnitsAgreeWithTheDaemonAndTheConfig() throws {
        let service = try directives("alertd.service")
        func value(_ key: String, in list: [(key: String, value: String)]) -> [String] {
            list.filter { $0.key == key }.map(\.value)
        }
        #expect(value("Type", in: service) == ["notify"])
        #expect(value("ExecStart", in: service) == ["/usr/local/bin/alertd --config /etc/alertd/alertd.json"])
        // A reload checks the file ExecStart= reads first: `systemctl reload`
        // fails on one alertd would refuse, where the signal alone returned 0.
        #expect(value("ExecReload", in: service) == ["/usr/local/bin/alertd --check-config --config /etc/alertd/alertd.json",
                                                     "/bin/kill -HUP $MAINPID"])
        #expect(value("RuntimeDirectoryPreserve", in: service) == ["yes"])
        #expect(value("WatchdogSec", in: service).count == 1)

        // The socket units' names are the roles SocketActivation knows.
        let socket = try directives("alertd.socket")
        let http = try directives("alertd-http.socket")
        #expect(value("FileDescriptorName", in: socket).compactMap(SocketActivation.Role.init) == [.api])
        #expect(value("FileDescriptorName", in: http).compactMap(SocketActivation.Role.init) == [.http])

        // The default config serves the socket alertd.socket binds, in the
        // service's runtime directory, and keeps state in its state directory.
        let config = try DaemonConfiguration.load(from: RepositoryFiles.path("config/alertd.json"))
        #expect(value("ListenStream", in: socket) == [config.resolvedSocketPath(environment: [:])])
        let runtime = try #require(value("RuntimeDirectory", in: service).first)
        #expect(config.resolvedSocketPath(environment: [:]).hasPrefix("/run/\(runtime)/"))
        let state = try #require(value("StateDirectory", in: service).first)
        #expect(config.stateDirectory == "/var/lib/\(state)")
        #expect(config.api.listen == nil)

        // tmpfiles creates the runtime directory as the service wants it.
        let tmpfiles = try RepositoryFiles.contents("systemd/alertd.tmpfiles")
        let mode = try #require(value("RuntimeDirectoryMode", in: service).first)
        #expect(tmpfiles.contains("d /run/\(runtime) \(mode) alertd alertd -"))
    }

    @Test func theDefaultConfigPassesCheckConfig() async throws {
        let dir = TemporaryDirectory()
        let result = try await TestBinaries.run(
            try TestBinaries.path(of: "alertd"),
            ["--check-config", "--config", RepositoryFiles.path("config/alertd.json"), "--state-dir", dir.path])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("configuration is valid\n"))
    }
}
