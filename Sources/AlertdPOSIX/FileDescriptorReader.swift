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
        /// The path names something other than a regular file (a directory,
        /// a FIFO, a device), which ``readFile(_:)`` does not read.
        case notRegularFile
    }

    /// Every byte up to end of input, or a failure once more than `limit`
    /// bytes have come.
    package static func readToEnd(_ fd: Int32, limit: Int = .max) -> Result<[UInt8], Failure> {
        readPrefix(fd, limit: limit).flatMap { $0.count <= limit ? .success($0) : .failure(.tooLarge) }
    }

    /// Every byte up to end of input, or once more than `limit` have come,
    /// those read so far (at most one read past the limit): enough for a
    /// caller to tell there was more without reading what never ends.
    package static func readPrefix(_ fd: Int32, limit: Int) -> Result<[UInt8], Failure> {
        var bytes: [UInt8] = []
        return forEachChunk(fd) { chunk in
            bytes += chunk
            return bytes.count <= limit
        }.map { _ in bytes }
    }

    /// Calls `body` with each line of the file at `path`, without its
    /// newline, reading 16 KB at a time: a long file is never held whole,
    /// so the heap does not grow to its size and keep that.
    package static func forEachLine(ofFile path: String, _ body: (ArraySlice<UInt8>) -> Void) -> Result<Void, Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.failed(.current)) }
        defer { close(fd) }
        var pending: [UInt8] = []
        let result = forEachChunk(fd) { chunk in
            pending += chunk
            var lineStart = pending.startIndex
            while let newline = pending[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                body(pending[lineStart..<newline])
                lineStart = newline + 1
            }
            pending.removeSubrange(..<lineStart)
            return true
        }
        if !pending.isEmpty { body(pending[...]) }
        return result.map { _ in () }
    }

    /// `read(2)` into a 16 KB buffer until end of input, retrying on `EINTR`,
    /// handing each chunk to `body` while it returns true. True when the end
    /// was reached, false when `body` stopped first.
    private static func forEachChunk(_ fd: Int32, _ body: (ArraySlice<UInt8>) -> Bool) -> Result<Bool, Failure> {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.failed(.current))
            }
            if n == 0 { return .success(true) }
            guard body(buffer[..<n]) else { return .success(false) }
        }
    }

    /// Every byte of the regular file at `path`. Failing to open it is
    /// `.failed` too, with the reason `open(2)` gave. Opened without
    /// blocking and refused unless regular: a FIFO put in the config file's
    /// place held a reload in `open(2)` for good, and the daemon's SIGTERM
    /// behind it. More than `limit` bytes is `.tooLarge`, read no further.
    package static func readFile(_ path: String, limit: Int = .max) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(.failed(.current)) }
        defer { close(fd) }
        switch FileStatus.of(descriptor: fd) {
        case .failure(let error): return .failure(.failed(error))
        case .success(let status) where status.kind != .regular: return .failure(.notRegularFile)
        case .success: return readToEnd(fd, limit: limit)
        }
    }
}
