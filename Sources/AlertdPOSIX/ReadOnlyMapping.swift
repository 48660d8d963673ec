/// A private mapping that is not writable (`r-xp` or `r--p`), as
/// `/proc/self/smaps` describes it: what
/// ``CurrentProcess/releaseStartupPages()`` may take back.
package struct ReadOnlyMapping: Equatable, Sendable {
    package var start: UInt
    package var end: UInt
    /// Mapped from a file (a path and an inode), not `[vdso]` or anonymous memory.
    package var isFileBacked: Bool
    /// `Rss`: kilobytes resident.
    package var residentKB = 0
    /// `Anonymous`: kilobytes written since mapping, which the file no longer holds.
    package var anonymousKB = 0

    package init(start: UInt, end: UInt, isFileBacked: Bool, residentKB: Int = 0, anonymousKB: Int = 0) {
        self.start = start
        self.end = end
        self.isFileBacked = isFileBacked
        self.residentKB = residentKB
        self.anonymousKB = anonymousKB
    }

    /// Reads `smaps` a line at a time: the `r-xp` and `r--p` mappings, each
    /// with its `Rss` and `Anonymous` lines; every other mapping is skipped.
    package struct Parser {
        private var mappings: [ReadOnlyMapping] = []
        private var current: ReadOnlyMapping?

        package init() {}

        /// One line of `smaps`, without its newline.
        package mutating func add(_ line: ArraySlice<UInt8>) {
            let fields = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
            guard let first = fields.first else { return }
            if first.hasSuffix(":") {
                // A line about the mapping above: "Rss:   1234 kB".
                guard fields.count >= 2, let kB = Int(fields[1]) else { return }
                if first == "Rss:" { current?.residentKB = kB }
                if first == "Anonymous:" { current?.anonymousKB = kB }
                return
            }
            // A mapping: "start-end perms offset dev inode [path]".
            if let done = current { mappings.append(done) }
            current = nil
            let bounds = first.split(separator: "-")
            guard fields.count >= 5, fields[1] == "r-xp" || fields[1] == "r--p", bounds.count == 2,
                  let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), start < end
            else { return }
            let fileBacked = fields.count >= 6 && fields[5].hasPrefix("/") && fields[4] != "0"
            current = ReadOnlyMapping(start: start, end: end, isFileBacked: fileBacked)
        }

        /// The mappings read, the last one included.
        package mutating func finish() -> [ReadOnlyMapping] {
            if let done = current { mappings.append(done) }
            current = nil
            return mappings
        }
    }
}
