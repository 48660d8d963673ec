import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program with `posix_spawn(3)`: an argument vector and no shell,
/// an environment given whole, bytes on its standard input, its standard
/// output and error captured together, and a time limit after which the
/// program and everything it started are killed.
///
/// Each run waits on a thread of its own, off the cooperative pool: the
/// wait is `poll(2)` and `waitpid(2)`, which block.
public enum ChildProcess {
    /// Runs `arguments[0]` (searched on `PATH` when it has no `/`) with
    /// `arguments`, exactly `environment`, and `input` on standard input.
    /// The program gets its own process group, default signal handling and
    /// an empty signal mask, whatever alertd's own are. Cancelling the
    /// calling task kills it as the timeout would.
    public static func run(
        _ arguments: [String], environment: [String: String], input: Data, timeout: Duration, maxOutputBytes: Int = 16 * 1024
    ) async throws(ChildProcessError) -> ChildProcessResult {
        let run = ChildRun(arguments: arguments, environment: environment, input: input, timeout: timeout, maxOutputBytes: maxOutputBytes)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<ChildProcessResult, ChildProcessError>, Never>) in
                DetachedThread.start(name: "alertd-exec") { continuation.resume(returning: run.perform()) }
            }
        } onCancel: {
            run.cancelRequested.store(true, ordering: .relaxed)
        }
        return try result.get()
    }
}

/// How a child ended, and what it wrote.
public struct ChildProcessResult: Sendable, Equatable {
    public enum Termination: Sendable, Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal it did not expect ended it.
        case signalled(Int32)
        /// It ran past its time limit and was killed.
        case timedOut
        /// The calling task was cancelled and it was killed.
        case cancelled
    }

    public var termination: Termination
    /// Standard output and standard error, interleaved as written: the last of them, up to the limit.
    public var output: Data
    /// True when it wrote more than the limit; the rest was read and dropped.
    public var outputTruncated: Bool

    public init(termination: Termination, output: Data = Data(), outputTruncated: Bool = false) {
        self.termination = termination
        self.output = output
        self.outputTruncated = outputTruncated
    }
}

/// Why a program could not be started.
public struct ChildProcessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The program as given.
    public let program: String
    public let errno: Errno

    public init(program: String, errno: Errno) {
        self.program = program
        self.errno = errno
    }

    /// A sentence a person can act on.
    public var message: String {
        "cannot run \(program): \(errno.description.lowercased()); check the path and that alertd's user may execute it"
    }

    public var description: String { message }
}

/// One run: what to run, and the flag a cancelled caller sets. Everything
/// that changes while it runs is local to `perform`, on the waiting thread.
final class ChildRun: Sendable {
    let arguments: [String]
    let environment: [String: String]
    let input: Data
    let timeout: Duration
    let maxOutputBytes: Int
    let cancelRequested = Atomic(false)
    private static let spawnLock = Mutex(())

    init(arguments: [String], environment: [String: String], input: Data, timeout: Duration, maxOutputBytes: Int) {
        self.arguments = arguments
        self.environment = environment
        self.input = input
        self.timeout = timeout
        self.maxOutputBytes = maxOutputBytes
    }

    func perform() -> Result<ChildProcessResult, ChildProcessError> {
        let program = arguments.first ?? ""
        guard !program.isEmpty else { return .failure(ChildProcessError(program: program, errno: Errno(ENOENT))) }
        // A program that stops reading its input early must make our write
        // fail with EPIPE, not kill alertd with SIGPIPE: blocked on this
        // thread only, which ends with the run.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)

        // A program is busy ("text file busy") while any process holds it
        // open for writing: a deployment's copy as it finishes, or a process
        // forked as something wrote it, until that one execs. Moments, so
        // tried again for half a second before the run fails, within its
        // time and unless it is cancelled.
        let deadline = ContinuousClock.now + timeout
        var spawned = spawnWithPipes(program)
        var pause: useconds_t = 2_000
        while case .failure(let error) = spawned, error.errno == Errno(ETXTBSY), pause <= 256_000,
              !cancelRequested.load(ordering: .relaxed), ContinuousClock.now + .microseconds(pause) < deadline {
            usleep(pause)
            pause *= 2
            spawned = spawnWithPipes(program)
        }
        let pid: pid_t, stdin: Int32, output: Int32
        switch spawned {
        case .success(let child): (pid, stdin, output) = child
        case .failure(let error): return .failure(error)
        }
        _ = fcntl(stdin, F_SETFL, fcntl(stdin, F_GETFL) | O_NONBLOCK)
        _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK)
        return .success(supervise(pid, stdin: stdin, output: output, until: deadline))
    }

    /// Starts the program with a pipe on its standard input and one for
    /// its output. Without pipe2 (a GNU extension Swift does not see),
    /// close-on-exec is set after the fact; the lock keeps a concurrent run
    /// from spawning in between and inheriting this run's pipe ends, which
    /// would keep its child from ever seeing the end of its input.
    private func spawnWithPipes(_ program: String) -> Result<(pid: pid_t, stdin: Int32, output: Int32), ChildProcessError> {
        Self.spawnLock.withLock { _ in
            var stdinPipe: [Int32] = [-1, -1]
            var outputPipe: [Int32] = [-1, -1]
            guard pipe(&stdinPipe) == 0 else { return .failure(ChildProcessError(program: program, errno: .current)) }
            guard pipe(&outputPipe) == 0 else {
                let error = Errno.current
                close(stdinPipe[0])
                close(stdinPipe[1])
                return .failure(ChildProcessError(program: program, errno: error))
            }
            for fd in stdinPipe + outputPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            let child = spawn(program, stdin: stdinPipe[0], output: outputPipe[1])
            close(stdinPipe[0])
            close(outputPipe[1])
            switch child {
            case .success(let pid):
                return .success((pid, stdinPipe[1], outputPipe[0]))
            case .failure(let error):
                close(stdinPipe[1])
                close(outputPipe[0])
                return .failure(error)
            }
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 on), which
    /// Swift's view of the C library does not show: found at run time.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
    }()

    /// Without that: every descriptor above 2 made close-on-exec, as listed
    /// in `/proc/self/fd`, under the lock that keeps this run's own pipes
    /// from another's child.
    private static func markInheritedDescriptorsCloseOnExec() {
        guard let dir = opendir("/proc/self/fd") else { return }
        defer { closedir(dir) }
        let own = dirfd(dir)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name), fd > 2, fd != own else { continue }
            _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        }
    }

    private func spawn(_ program: String, stdin: Int32, output: Int32) -> Result<pid_t, ChildProcessError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        // Nothing else of alertd's: libraries open descriptors without
        // close-on-exec (libcurl's wake-up socket pairs), and a program had
        // inherited alertd's kept connections to other presenters' services.
        if let closeFrom = Self.addCloseFrom {
            _ = closeFrom(&actions, 3)
        } else {
            Self.markInheritedDescriptorsCloseOnExec()
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so a timeout kills what it started too;
        // default dispositions, since alertd ignores the signals it turns
        // into an async stream and ignored signals survive exec.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &all)

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
        guard rc == 0 else { return .failure(ChildProcessError(program: program, errno: Errno(rc))) }
        return .success(pid)
    }

    /// Feeds the input, collects the output and waits for the exit, until
    /// the deadline or a cancellation.
    private func supervise(_ pid: pid_t, stdin: Int32, output: Int32, until deadline: ContinuousClock.Instant) -> ChildProcessResult {
        var inputFD: Int32? = stdin
        var outputFD: Int32? = output
        var written = 0
        var collected = Data()
        var cut = false
        var status: Int32?
        var killedFor: ChildProcessResult.Termination?
        defer {
            if let inputFD { close(inputFD) }
            if let outputFD { close(outputFD) }
        }
        if input.isEmpty {
            close(stdin)
            inputFD = nil
        }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)

        // A few reads a wake-up: a program that writes as fast as it is
        // read would otherwise keep the loop from its deadline.
        func drain(_ fd: Int32) -> Bool {
            for _ in 0..<64 {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    // The last of it is kept: a program puts why it failed at
                    // the end. Cut back into a fresh buffer: cut from the
                    // front in place, `Data` kept every byte read behind the
                    // cut, and a program printing without end grew alertd by
                    // hundreds of MB a second.
                    collected.append(contentsOf: buffer[..<n])
                    if collected.count > 2 * maxOutputBytes {
                        collected = Data(collected.suffix(maxOutputBytes))
                        cut = true
                    }
                    continue
                }
                if n < 0 && (errno == EAGAIN || errno == EINTR) { return true }
                return false  // end of file, or an error: either way nothing more comes
            }
            return true
        }
        func result(_ termination: ChildProcessResult.Termination) -> ChildProcessResult {
            ChildProcessResult(termination: termination, output: Data(collected.suffix(maxOutputBytes)),
                               outputTruncated: cut || collected.count > maxOutputBytes)
        }

        while status == nil {
            if cancelRequested.load(ordering: .relaxed) { killedFor = .cancelled; break }
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { killedFor = .timedOut; break }
            var fds: [pollfd] = []
            if let inputFD { fds.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0)) }
            if let outputFD { fds.append(pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)) }
            // Short waits: the child's exit and a cancellation are noticed between them.
            let wait = Int32(min(50, max(1, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)))
            _ = poll(&fds, nfds_t(fds.count), wait)
            for entry in fds where entry.revents != 0 {
                if entry.fd == inputFD {
                    let n = input.withUnsafeBytes { write(entry.fd, $0.baseAddress! + written, $0.count - written) }
                    if n > 0 { written += n }
                    if written == input.count || (n < 0 && errno != EAGAIN && errno != EINTR) {
                        close(entry.fd)
                        inputFD = nil
                    }
                } else if entry.fd == outputFD, !drain(entry.fd) {
                    close(entry.fd)
                    outputFD = nil
                }
            }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid {
                status = raw
                // What it wrote before exiting is in the pipe; what programs
                // it left running write later is not its output.
                if let fd = outputFD { _ = drain(fd) }
            }
        }
        if let killedFor {
            // What left its process group (`setsid`) is found by ancestry,
            // while the program still runs to hold its descendants together.
            for descendant in ProcessTree.descendants(of: pid) { kill(descendant, SIGKILL) }
            kill(-pid, SIGKILL)
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            if let fd = outputFD { _ = drain(fd) }
            return result(killedFor)
        }
        let raw = status ?? 0
        let signal = raw & 0x7f
        let termination: ChildProcessResult.Termination = signal == 0 ? .exited((raw >> 8) & 0xff) : .signalled(signal)
        return result(termination)
    }
}
