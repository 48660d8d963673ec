#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the process can learn about a terminal on a file descriptor.
package enum TerminalDevice {
    package static let standardInput: Int32 = STDIN_FILENO
    package static let standardOutput: Int32 = STDOUT_FILENO
    package static let standardError: Int32 = STDERR_FILENO

    /// `isatty(3)`.
    package static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// The terminal's width from `ioctl(TIOCGWINSZ)`; nil when `fd` is not a
    /// terminal or the terminal does not know (a pseudo-terminal may say 0).
    package static func columns(_ fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
