#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's own machine code, as mapped from its executable file.
///
/// A static Swift binary carries the runtime, the standard library and
/// FoundationEssentials: about 11 MB of code, of which starting up runs a
/// scattered part. The kernel maps code in 64 KB windows around each page
/// run (fault-around), so after start-up most of the 11 MB counted as the
/// daemon's resident memory though little of it runs again.
package enum ExecutableText {
    /// Unmaps the code pages mapped so far (`MADV_DONTNEED`; they stay in
    /// the page cache, shared and reclaimable) and asks the kernel to map
    /// only the pages that run from now on (`MADV_RANDOM`: no fault-around
    /// or read-ahead for this mapping). Only the read-only, executable
    /// mapping is touched: its pages are never written, so nothing is lost.
    /// Returns how many bytes of mapping it applied to (0 if none was found).
    @discardableResult
    package static func releaseStartupPages() -> Int {
        guard let executable = realpath("/proc/self/exe", nil) else { return 0 }
        let path = String(cString: executable)
        free(executable)
        guard let file = fopen("/proc/self/maps", "r") else { return 0 }
        defer { fclose(file) }
        var released = 0
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(cString: line)
            // `start-end perms offset dev inode path`
            let fields = text.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "r-xp",
                  fields[5...].joined(separator: " ").trimmingSuffix("\n") == path else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start,
                  let address = UnsafeMutableRawPointer(bitPattern: start) else { continue }
            let length = Int(end - start)
            _ = madvise(address, length, MADV_RANDOM)
            _ = madvise(address, length, MADV_DONTNEED)
            released += length
        }
        return released
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self[...]
    }
}
