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
