import Foundation
import Testing
@testable import AlertdPOSIX

#if canImport(Glibc)
import Glibc
#endif

/// Files alertd creates are born private, its state directory stays 0750
/// or tighter, and secret files others could read or replace are refused.
@Suite(.serialized) struct FileModeTests {
    func permissions(_ path: String) throws -> UInt32 {
        try FileStatus.of(path).get().permissions
    }

    @Test func everyFileIsCreatedWithItsFinalMode() async throws {
        // A public URL makes alertd create the action-link key.
        let d = try TestDaemon(config: ["api": ["public_url": "https://alertd.example"]])
        try await d.start()
        _ = try await d.send(["title": "make the log"])
        let log = d.stateDir + "/alerts.log"
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: log) { try await Task.sleep(for: .milliseconds(20)) }

        #expect(try permissions(d.stateDir) == 0o750)
        #expect(try permissions(d.stateDir + "/action-links.key") == 0o600)
        // The test process's umask is 022; alertd's own 027 is what keeps these private.
        for file in ["alertd.db", "alertd.db-wal", "alertd.db-shm", "alertd.lock", "alerts.log"] {
            let mode = try permissions(d.stateDir + "/" + file)
            #expect(mode & 0o027 == 0, "\(file) is \(FileMode.octal(mode))")
        }
        #expect(!FileManager.default.fileExists(atPath: d.stateDir + "/.write-probe"))
    }

    @Test func aLooserStateDirectoryIsTightenedAndSaysSo() async throws {
        let d = try TestDaemon()
        try FileManager.default.createDirectory(atPath: d.stateDir, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: d.stateDir)
        try await d.start()
        #expect(try permissions(d.stateDir) == 0o750)
        #expect(d.log.contains("tightened the state directory's permissions from=0777"), "\(d.log)")
        #expect(d.log.contains("to=0750"))
    }

    /// In a directory others could write, a symbolic link named like one
    /// of alertd's files would have it write there: alertd tightens such a
    /// directory and starts only if every entry is its own and none is a link.
    @Test func plantedLinksInAStateDirectoryOthersCouldWriteStopTheStart() async throws {
        let d = try TestDaemon()
        let elsewhere = TemporaryDirectory()
        let victim = elsewhere.path + "/victim"
        try Data("untouched\n".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createDirectory(atPath: d.stateDir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: d.stateDir + "/alerts.log", withDestinationPath: victim)
        try FileManager.default.createSymbolicLink(atPath: d.stateDir + "/alertd.db", withDestinationPath: elsewhere.path + "/db")
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: d.stateDir)
        #expect(try await d.startExpectingExit() == 1)
        #expect(d.log.contains("holds alertd.db, alerts.log, which are symbolic links or other users'"), "\(d.log)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched\n")
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path + "/db"))
        // Left as it was, so a restart (systemd's Restart=) is refused too.
        #expect(try permissions(d.stateDir) == 0o777)
        #expect(try await d.startExpectingExit() == 1)

        // Removed, the directory is alertd's alone and it starts.
        try FileManager.default.removeItem(atPath: d.stateDir + "/alerts.log")
        try FileManager.default.removeItem(atPath: d.stateDir + "/alertd.db")
        try await d.start()
        #expect(try permissions(d.stateDir) == 0o750)
    }

    @Test func secretFilesOthersCouldReadOrWriteAreRefused() async throws {
        let files = TemporaryDirectory()
        let token = files.path + "/token"
        try writeSecretFile("0123456789abcdef0123456789abcdef\n", to: token)
        let d = try TestDaemon(config: ["api": ["token_file": token]])

        for (mode, words) in [(0o644, "may be read by every user (mode 0644)"), (0o660, "may be written by group or others (mode 0660)"),
                              (0o602, "may be written by group or others (mode 0602)")] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: token)
            let check = try await d.checkConfig()
            #expect(check.exitCode == 65)
            #expect(check.stderr.contains("the secret file \(token) \(words)"), "\(check.stderr)")
            #expect(try await d.startExpectingExit() == 1)
            #expect(d.log.contains("the secret file \(token) \(words)"))
            // alertctl holds its token file to the same rule.
            let client = try await TestBinaries.alertctl("list", "--url", d.baseURL, "--token-file", token)
            #expect(client.exitCode == 64)
            #expect(client.stderr.hasPrefix("Error: Refusing the token file: the secret file \(token) \(words)"), "\(client.stderr)")
        }

        // Group read is how a secret is shared with the group alertd runs in.
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: token)
        try await d.start()
        let client = try await TestBinaries.alertctl("list", "--url", d.baseURL, "--token-file", token)
        #expect(client.exitCode == 0, "\(client.stderr)")
    }

    @Test func anActionLinkKeyOthersCanReadIsRefused() async throws {
        let d = try TestDaemon(config: ["api": ["public_url": "https://alertd.example"]])
        try await d.start()
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
        let key = d.stateDir + "/action-links.key"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key)
        #expect(try await d.startExpectingExit() == 1)
        #expect(d.log.contains("Cannot use the action-link key: the secret file \(key) may be read by every user"), "\(d.log)")
    }
}
