import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Ways to make a running alertd's storage fail for real, for the tests of
/// what it does then.
///
/// **Read-only files, root included.** Tests run as root, which permission
/// bits do not bind, and a descriptor opened for writing goes on writing
/// after a chmod anyway, so `chmod -w` cannot make a live store unwritable.
/// The immutable attribute can: after `chattr +i` the kernel refuses every
/// write to the file, through descriptors opened before too, and every new
/// entry in a directory, whoever asks. The store's `-shm` file must be left
/// alone: SQLite has it mapped, and a fault on an immutable mapping would
/// kill alertd with SIGBUS rather than fail a write.
///
/// **A full disk.** A 1 MiB tmpfs mounted over the state directory in a
/// private mount namespace (`unshare -m`), so the host never sees it; the
/// test fills it from inside that namespace (`nsenter`).
enum StorageFaults {
    /// Whether `chattr +i` works here (root, a file system that has the attribute).
    static let canFreeze: Bool = {
        let dir = TemporaryDirectory()
        let probe = dir.path + "/probe"
        guard FileManager.default.createFile(atPath: probe, contents: Data("x".utf8)),
              run(["chattr", "+i", probe]).status == 0 else { return false }
        defer { _ = run(["chattr", "-i", probe]) }
        return access(probe, W_OK) != 0
    }()

    /// Whether a private mount namespace with a tmpfs can be made (root, util-linux).
    static let canMountPrivateTmpfs: Bool = {
        let dir = TemporaryDirectory()
        return run(["unshare", "-m", "--propagation", "private", "--", "/bin/sh", "-c",
                    "mount -t tmpfs -o size=64k alertd-probe \"$0\" && umount \"$0\"", dir.path]).status == 0
            && run(["nsenter", "--version"]).status == 0
    }()

    /// `chattr +i` on each path: unwritable for everyone until ``thaw(_:)``.
    static func freeze(_ paths: [String]) throws {
        let result = run(["chattr", "+i"] + paths)
        guard result.status == 0 else { throw TestDaemon.Failure("chattr +i failed: \(result.output)") }
    }

    /// `chattr -i` on each path.
    static func thaw(_ paths: [String]) {
        _ = run(["chattr", "-i"] + paths)
    }

    /// The command `TestDaemon` puts before alertd so that it runs with a
    /// tmpfs of `size` mounted on `directory`, in a mount namespace of its own.
    static func privateTmpfs(on directory: String, size: String) -> [String] {
        ["unshare", "-m", "--propagation", "private", "--", "/bin/sh", "-c",
         #"mkdir -p "$0" && mount -t tmpfs -o size=\#(size),mode=0750 alertd-test "$0" && exec "$@""#, directory]
    }

    /// Runs `script` with `/bin/sh` in the mount namespace of process `pid`.
    @discardableResult
    static func inMountNamespace(of pid: Int32, _ script: String) -> (status: Int32, output: String) {
        run(["nsenter", "-t", "\(pid)", "-m", "--", "/bin/sh", "-c", script])
    }

    /// Runs a command found on `PATH`; its exit status and what it printed.
    @discardableResult
    static func run(_ command: [String]) -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = command
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        do { try p.run() } catch { return (-1, error.localizedDescription) }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }
}
