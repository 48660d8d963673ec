@testable import AlertdPOSIX
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `CurrentProcess.releaseStartupPages()` unmaps what the files still hold
/// and nothing that was written: relocated tables under RELRO must survive.
@Suite(.serialized) struct StartupPagesTests {
    @Test func parsesTheReadOnlyPrivateMappingsOfSmaps() {
        let smaps = """
            55d0c0000000-55d0c0010000 r--p 00000000 fd:01 1234                       /usr/sbin/alertd
            Size:                 64 kB
            Rss:                  12 kB
            Anonymous:             0 kB
            55d0c0010000-55d0c0020000 r-xp 00010000 fd:01 1234                       /usr/sbin/alertd
            Rss:                  64 kB
            Anonymous:             0 kB
            VmFlags: rd ex mr mw me
            55d0c0020000-55d0c0030000 r--p 00020000 fd:01 1234                       /usr/sbin/alertd
            Rss:                  16 kB
            Anonymous:             8 kB
            55d0c0030000-55d0c0040000 rw-p 00030000 fd:01 1234                       /usr/sbin/alertd
            Rss:                  64 kB
            Anonymous:            64 kB
            7ffd1c000000-7ffd1c002000 r-xp 00000000 00:00 0                          [vdso]
            Rss:                   8 kB
            Anonymous:             0 kB
            7f0000000000-7f0000001000 r--p 00000000 00:00 0 
            Rss:                   4 kB
            """
        #expect(ReadOnlyMapping.parse(Array(smaps.utf8)) == [
            ReadOnlyMapping(start: 0x55d0c0000000, end: 0x55d0c0010000, isFileBacked: true, residentKB: 12),
            ReadOnlyMapping(start: 0x55d0c0010000, end: 0x55d0c0020000, isFileBacked: true, residentKB: 64),
            ReadOnlyMapping(start: 0x55d0c0020000, end: 0x55d0c0030000, isFileBacked: true, residentKB: 16, anonymousKB: 8),
            ReadOnlyMapping(start: 0x7ffd1c000000, end: 0x7ffd1c002000, isFileBacked: false, residentKB: 8),
            ReadOnlyMapping(start: 0x7f0000000000, end: 0x7f0000001000, isFileBacked: false, residentKB: 4),
        ])
    }

    /// Lines cut by the 16 KB reads come out whole; the last needs no newline.
    @Test func readsLinesAcrossReads() throws {
        let dir = TemporaryDirectory()
        let lines = (0..<3000).map { String(repeating: "x", count: $0 % 37) + "\($0)" }
        let path = dir.path + "/lines"
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        var read: [String] = []
        let result = FileDescriptorReader.forEachLine(ofFile: path) { read.append(String(decoding: $0, as: UTF8.self)) }
        #expect((try? result.get()) != nil)
        #expect(read == lines)
        let missing = FileDescriptorReader.forEachLine(ofFile: dir.path + "/missing") { _ in }
        #expect(throws: FileDescriptorReader.Failure.failed(.noSuchFile)) { try missing.get() }
    }

    /// Two private read-only mappings of a file, both read: one never
    /// written, one written and made read-only again as the dynamic linker
    /// does with RELRO. The first leaves the resident set and reads the
    /// same; the second keeps its pages and the byte written.
    @Test func releasesCleanMappingsAndKeepsWrittenOnes() throws {
        let dir = TemporaryDirectory()
        let size = 16 * 4096
        let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = dir.path + "/mapped"
        try Data(content).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }

        let clean = try #require(mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0))
        let written = try #require(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0))
        try #require(clean != MAP_FAILED && written != MAP_FAILED)
        defer { munmap(clean, size); munmap(written, size) }
        written.storeBytes(of: 0xA5, toByteOffset: 4096 + 7, as: UInt8.self)
        try #require(mprotect(written, size, PROT_READ) == 0)
        var sum = 0
        for offset in stride(from: 0, to: size, by: 4096) {
            sum &+= Int(clean.load(fromByteOffset: offset + 1, as: UInt8.self))
            sum &+= Int(written.load(fromByteOffset: offset + 1, as: UInt8.self))
        }
        #expect(sum != 0)
        #expect(resident(clean) == size / 1024)
        let writtenBefore = try #require(resident(written))

        #expect(CurrentProcess.releaseStartupPages() >= size / 1024)

        #expect(resident(clean) == 0)
        #expect(resident(written) == writtenBefore)
        #expect(written.load(fromByteOffset: 4096 + 7, as: UInt8.self) == 0xA5)
        #expect(Array(UnsafeRawBufferPointer(start: clean, count: size)) == content)
        var expected = content
        expected[4096 + 7] = 0xA5
        #expect(Array(UnsafeRawBufferPointer(start: written, count: size)) == expected)
    }

    /// A library load (``LibraryLoading``) and a release exclude each other:
    /// a release that read a span the loader was still relocating as clean
    /// threw the relocations away, and the daemon died in the loader (one
    /// restart in about fifty with deliveries due).
    @Test func aReleaseWaitsForALibraryLoadUnderWay() async throws {
        let loading = Mutex(false)
        let loader = Thread {
            LibraryLoading.run {
                loading.withLock { $0 = true }
                usleep(200_000)
                loading.withLock { $0 = false }
            }
        }
        loader.start()
        let deadline = ContinuousClock.now + .seconds(5)
        while !loading.withLock({ $0 }), ContinuousClock.now < deadline { usleep(1_000) }
        #expect(loading.withLock { $0 }, "the load did not start")
        CurrentProcess.releaseStartupPages()
        #expect(!loading.withLock { $0 }, "the release ran while a library was loading")
    }

    /// The real daemon, once ready: GnuTLS, which Debian's libmicrohttpd
    /// links and sets up at load though alertd never speaks TLS through it,
    /// holds none of its code resident (it held over 500 kB before).
    @Test func aReadyDaemonHoldsNoCodeOnlyStartingRan() async throws {
        let d = try TestDaemon()
        try await d.start()
        let pid = try #require(d.pid)
        func gnutlsCodeKB() -> Int? {
            var parser = ReadOnlyMapping.Parser()
            var gnutls: Set<UInt> = []
            _ = FileDescriptorReader.forEachLine(ofFile: "/proc/\(pid)/smaps") { line in
                parser.add(line)
                let text = String(decoding: line, as: UTF8.self)
                if text.contains(" r-xp "), text.contains("/libgnutls.so"),
                   let dash = text.firstIndex(of: "-"), let start = UInt(text[..<dash], radix: 16) {
                    gnutls.insert(start)
                }
            }
            let code = parser.finish().filter { gnutls.contains($0.start) }
            return code.isEmpty ? nil : code.reduce(0) { $0 + $1.residentKB }
        }
        let first = try #require(gnutlsCodeKB(), "libgnutls is not mapped into alertd; the test needs another start-only library")
        let released = await eventually(.seconds(5)) { gnutlsCodeKB() == 0 }
        #expect(released, "GnuTLS code resident: \(first) kB, then \(gnutlsCodeKB() ?? -1) kB")
    }

    /// Memory freed between live chunks stays resident until the allocator
    /// is asked to give it back: after a large answer the daemon kept its
    /// high-water mark. 128 MB in small chunks, all but the last freed.
    @Test func freedHeapGoesBackToTheKernel() {
        func residentMB() -> Int {
            let fd = open("/proc/self/statm", O_RDONLY)
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = read(fd, &buffer, buffer.count)
            let fields = String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).split(separator: " ")
            let pages = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            return (pages * Int(sysconf(Int32(_SC_PAGESIZE)))) >> 20
        }
        let chunks = (0..<(128 << 20) / 4_096).map { _ -> UnsafeMutableRawPointer in
            let p = malloc(4_000)!
            memset(p, 1, 4_000)
            return p
        }
        for p in chunks.dropLast() { free(p) }
        let held = residentMB()
        #expect(CurrentProcess.releaseFreeHeap())
        let after = residentMB()
        free(chunks.last!)
        // Untrimmed, none of it goes back. Late in the whole suite, with dozens
        // of threads sharing malloc's arenas, 56 of the 128 MB went back once.
        #expect(held - after > 32, "resident \(held) MB before the trim, \(after) MB after")
    }

    /// The `Rss` of the mapping that starts at `address`, in kB.
    private func resident(_ address: UnsafeMutableRawPointer) -> Int? {
        // procfs files say they are empty to stat(2): read to the end instead.
        guard case .success(let smaps) = FileDescriptorReader.readFile("/proc/self/smaps") else { return nil }
        let start = UInt(bitPattern: address)
        return ReadOnlyMapping.parse(smaps).first { $0.start == start }?.residentKB
    }
}

extension ReadOnlyMapping {
    /// The mappings of a whole `smaps` text, through the daemon's parser.
    static func parse(_ smaps: [UInt8]) -> [ReadOnlyMapping] {
        var parser = Parser()
        for line in smaps.split(separator: UInt8(ascii: "\n")) { parser.add(line) }
        return parser.finish()
    }
}
