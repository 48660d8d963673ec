#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a descriptor to its end with `read(2)`, retrying on `EINTR`: a
/// pipe on standard input, a secret file, the config file.
package enum FileDescriptorReader {
    /// Why reading stopped short.
    package enum Failure: Error, Equatable {
        /// `read(2)` failed.
        case failed(Errno)
        /// There was more than the limit.
        case tooLarge
    }

    /// Every byte up to end of input, or a failure once more than `limit`
    /// bytes have come.
    package static func readToEnd(_ fd: Int32, limit: Int = .max) -> Result<[UInt8], Failure> {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.failed(.current))
            }
            if n == 0 { return .success(bytes) }
            bytes += buffer[..<n]
            guard bytes.count <= limit else { return .failure(.tooLarge) }
        }
    }

    /// Calls `body` with each line of the file at `path`, without its
    /// newline, reading 16 KB at a time: a long file is never held whole,
    /// so the heap does not grow to its size and keep that.
    package static func forEachLine(ofFile path: String, _ body: (ArraySlice<UInt8>) -> Void) -> Result<Void, Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.failed(.current)) }
        defer { close(fd) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.failed(.current))
            }
            if n == 0 { break }
            pending += buffer[..<n]
            var lineStart = pending.startIndex
            while let newline = pending[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                body(pending[lineStart..<newline])
                lineStart = newline + 1
            }
            pending.removeSubrange(..<lineStart)
        }
        if !pending.isEmpty { body(pending[...]) }
        return .success(())
    }

    /// Every byte of the file at `path`. Failing to open it is `.failed`
    /// too, with the reason `open(2)` gave.
    package static func readFile(_ path: String) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.failed(.current)) }
        defer { close(fd) }
        return readToEnd(fd)
    }
}
