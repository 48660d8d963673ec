#if canImport(Glibc)
import Glibc
#endif

extension CurrentProcess {
    /// Takes out of this process's page tables every page of its executable
    /// and shared libraries that the file still holds byte for byte: the
    /// private, read-only, file-backed mappings that no write ever touched
    /// (code, symbol tables, constants). Returns the kilobytes they held.
    ///
    /// Starting touches far more of these than running does. The dynamic
    /// linker reads every library's symbol tables once to bind it; GnuTLS
    /// sets itself up for a libmicrohttpd that never speaks TLS; the
    /// configuration, the migrations and the first store reads run once. On
    /// an idle daemon those pages were about 5 MB of its 13 MB resident set.
    /// The pages stay in the page cache: what runs again faults back in
    /// without reading the disk, and the rest is the first cache the kernel
    /// reclaims, where a mapped page of code is the last.
    ///
    /// `MADV_DONTNEED` on such a mapping loses nothing. A mapping with any
    /// anonymous page is left alone: that page was written (relocations
    /// under RELRO, a breakpoint) and would go back to the file's bytes.
    /// Loads made through ``LibraryLoading`` wait for it (see there why).
    @discardableResult
    public static func releaseStartupPages() -> Int {
        var released = 0
        LibraryLoading.run {
            var parser = ReadOnlyMapping.Parser()
            guard case .success = FileDescriptorReader.forEachLine(ofFile: "/proc/self/smaps", { parser.add($0) }) else { return }
            for mapping in parser.finish() where mapping.isFileBacked && mapping.anonymousKB == 0 {
                if madvise(UnsafeMutableRawPointer(bitPattern: mapping.start), Int(mapping.end - mapping.start), MADV_DONTNEED) == 0 {
                    released += mapping.residentKB
                }
            }
        }
        return released
    }
}
