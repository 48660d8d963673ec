import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child started with `posix_spawn(3)`, for what Foundation's `Process`
/// cannot do: hand the child chosen descriptors at chosen numbers, as systemd
/// does with socket activation. Killed and reaped on deinit.
final class SpawnedProcess: Sendable {
    let pid: pid_t
    private let status = Mutex<Int32?>(nil)

    /// Runs `executable` with `arguments`, this process's environment (less
    /// systemd's variables) plus `environment`, each `descriptors` entry
    /// (`target: source`) dup'ed into place, stdin from /dev/null and
    /// stdout and stderr appended to `output`.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
         descriptors: [Int32: Int32] = [:], output: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Copies far from the targets first, so one dup2 cannot clobber the
        // source of another; close-on-exec, so only the targets survive.
        var copies: [Int32] = []
        defer { for fd in copies { close(fd) } }
        for (target, source) in descriptors.sorted(by: { $0.key < $1.key }) {
            let copy = fcntl(source, F_DUPFD_CLOEXEC, 200)
            guard copy >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EBADF) }
            copies.append(copy)
            posix_spawn_file_actions_adddup2(&actions, copy, target)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var env = ProcessInfo.processInfo.environment
        for name in ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "JOURNAL_STREAM", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            env[name] = nil
        }
        env.merge(environment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }

        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard rc == 0 else { throw POSIXError(.init(rawValue: rc) ?? .EIO) }
        pid = child
    }

    deinit { kill() }

    func signal(_ sig: Int32) {
        if status.withLock({ $0 }) == nil { Glibc.kill(pid, sig) }
    }

    /// SIGKILL and reap, unless it has already been reaped.
    func kill() {
        status.withLock { s in
            guard s == nil else { return }
            Glibc.kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
            s = -1
        }
    }

    /// The exit status (128 + signal when killed), or nil if it is still
    /// running after `timeout`.
    func waitForExit(timeout: Duration = .seconds(15)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let done = exitStatus { return done }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// The exit status (128 + signal when killed), reaping the child if it
    /// has just ended; nil while it runs.
    var exitStatus: Int32? {
        status.withLock { s -> Int32? in
            if let s { return s }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            let low = raw & 0x7f
            s = low == 0 ? (raw >> 8) & 0xff : 128 + low
            return s
        }
    }

    var isFinished: Bool { exitStatus != nil }
}
