#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Permission bits: setting them on a path, and the process's file creation
/// mask, which decides the mode of every file it creates from then on.
package enum FileMode {
    /// `chmod(2)`; the error, if it failed.
    package static func change(_ path: String, to permissions: UInt32) -> Errno? {
        chmod(path, mode_t(permissions)) == 0 ? nil : .current
    }

    /// Adds `bits` to the file creation mask (`umask(2)`), keeping every bit
    /// already in it: a stricter mask from the service manager (systemd's
    /// `UMask=`) stays. Returns the mask now in force.
    @discardableResult
    package static func restrictCreationMask(_ bits: UInt32) -> UInt32 {
        let old = UInt32(umask(0o077))
        let new = old | bits
        umask(mode_t(new))
        return new
    }

    /// `0640`: four octal digits, as `chmod` and `ls -l` users read them.
    package static func octal(_ permissions: UInt32) -> String {
        let digits = String(permissions & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
