import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal on a file descriptor (standard input) switched to one key at
/// a time: non-canonical, no echo, and Ctrl-C as a key (`0x03`) rather than
/// a signal, so `alertctl watch` can quit in order. ``restore()`` puts back
/// the mode it found; it also runs when SIGINT, SIGTERM or SIGHUP arrive
/// from outside, before the signal takes its usual course.
///
/// ```swift
/// guard let input = TerminalInput() else { … }   // not a terminal
/// defer { input.restore() }
/// for await key in input.keys() { … }
/// ```
package final class TerminalInput: Sendable {
    private struct State {
        package var restored = false
        package var signalSources: [any DispatchSourceSignal] = []
    }

    package let fd: Int32
    /// The mode found at start (`tcgetattr`).
    private let saved: termios
    private let state = Mutex(State())
    private let stopReading = Atomic(false)

    package static let handledSignals = [SIGINT, SIGTERM, SIGHUP]

    /// Switches `fd` to key-at-a-time mode; nil when it is not a terminal or
    /// the mode cannot be changed.
    package init?(fd: Int32 = 0) {
        var mode = termios()
        guard isatty(fd) == 1, tcgetattr(fd, &mode) == 0 else { return nil }
        self.fd = fd
        saved = mode
        mode.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        withUnsafeMutableBytes(of: &mode.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSANOW, &mode) == 0 else { return nil }
        installSignalHandlers()
    }

    deinit {
        restore()
    }

    /// Puts the terminal back as it was and stops reading keys; once.
    package func restore() {
        let sources = state.withLock { state -> [any DispatchSourceSignal]? in
            guard !state.restored else { return nil }
            state.restored = true
            defer { state.signalSources = [] }
            return state.signalSources
        }
        guard let sources else { return }
        stopReading.store(true, ordering: .relaxed)
        var mode = saved
        _ = tcsetattr(fd, TCSANOW, &mode)
        for source in sources { source.cancel() }
        for number in Self.handledSignals { signal(number, SIG_DFL) }
    }

    /// The bytes typed, one by one, read on a thread of their own; ends at
    /// end of input or after ``restore()``.
    package func keys() -> AsyncStream<UInt8> {
        let (stream, continuation) = AsyncStream<UInt8>.makeStream()
        DetachedThread.start(name: "alertctl-keys") { [self] in
            defer { continuation.finish() }
            var byte: UInt8 = 0
            while !stopReading.load(ordering: .relaxed) {
                // Short polls, so `restore()` ends the loop without a key press.
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, 100)
                if ready == 0 || (ready < 0 && errno == EINTR) { continue }
                guard ready > 0 else { return }
                let count = read(fd, &byte, 1)
                if count == 1 {
                    continuation.yield(byte)
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    return
                }
            }
        }
        return stream
    }

    /// SIGINT, SIGTERM, SIGHUP: restore the terminal, then die of the signal
    /// as the shell expects.
    private func installSignalHandlers() {
        // Made inside the lock: the sources never leave the state they live in.
        state.withLock { state in
            for number in Self.handledSignals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [weak self] in
                    self?.restore()
                    signal(number, SIG_DFL)
                    raise(number)
                }
                source.resume()
                state.signalSources.append(source)
            }
        }
    }
}
