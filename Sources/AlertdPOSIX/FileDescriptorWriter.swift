#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Writes whole buffers to a file descriptor the process does not own
/// (stdout, stderr), one writer at a time, so two alerts printed at once
/// never mix their lines.
package final class FileDescriptorWriter: Sendable {
    package static let standardOutput = FileDescriptorWriter(fd: STDOUT_FILENO)
    package static let standardError = FileDescriptorWriter(fd: STDERR_FILENO)

    package let fd: Int32
    /// Guards the descriptor so each buffer goes out whole, and holds the
    /// errno of the first write that failed (0 while none has).
    private let lock = Mutex<Int32>(0)

    package init(fd: Int32) { self.fd = fd }

    /// Writes all of `bytes`; returns the errno of a failed `write(2)`.
    package func write(_ bytes: [UInt8]) -> Int32? {
        lock.withLock { firstFailure in
            let failure = FileDescriptorWriter.writeAll(fd, bytes)
            if let failure, firstFailure == 0 { firstFailure = failure }
            return failure
        }
    }

    /// Why the first write that failed failed, if one did: a command whose
    /// output went nowhere (`> /dev/full`, a full disk) must not end as if
    /// it had printed it.
    package var firstFailure: Errno? {
        lock.withLock { $0 == 0 ? nil : Errno($0) }
    }

    /// Calls `write(2)` until every byte is out, retrying on `EINTR`. A
    /// pipe or terminal may take a large buffer in pieces; the caller's
    /// lock keeps other writers of this process out meanwhile.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var written = 0
        return writeAll(fd, bytes, written: &written)
    }

    /// ``writeAll(_:_:)``, saying how many bytes went out before a failure.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], written offset: inout Int) -> Int32? {
        offset = 0
        return bytes.withUnsafeBytes { buffer -> Int32? in
            while offset < buffer.count {
                let n = systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
    }

    /// `write(2)`.
    private static func systemWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, pointer, count)
        #else
        Darwin.write(fd, pointer, count)
        #endif
    }
}
