import FoundationEssentials

/// Bytes waiting for a slow reader, kept in blocks of one size. One buffer
/// grown by copying left each stream the buffers it had outgrown (16, 32,
/// 64 and 128 KiB on the way to 256), which the heap could not give to the
/// next stream's larger one: 256 stalled event streams peaked at 480 KB
/// each against their 256 KiB bound. Blocks of one size are freed to be
/// taken again as they are.
struct BlockQueue {
    static let blockSize = 16 * 1024

    /// Full but for the last; the first is read from `head` on.
    private var blocks: [[UInt8]] = []
    private var head = 0
    /// Bytes not yet read.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Bytes held, read or not, in whole blocks.
    var held: Int { blocks.count * Self.blockSize }

    mutating func append(_ data: Data) {
        var rest = data[...]
        while !rest.isEmpty {
            if blocks.isEmpty || blocks[blocks.count - 1].count == Self.blockSize {
                var block: [UInt8] = []
                block.reserveCapacity(Self.blockSize)
                blocks.append(block)
            }
            let room = Self.blockSize - blocks[blocks.count - 1].count
            let part = rest.prefix(room)
            blocks[blocks.count - 1].append(contentsOf: part)
            rest = rest.dropFirst(part.count)
            count += part.count
        }
    }

    /// Copies up to `max` bytes to `destination`; how many it copied.
    mutating func read(into destination: UnsafeMutableRawPointer, max: Int) -> Int {
        var copied = 0
        while copied < max, !blocks.isEmpty {
            let n = min(blocks[0].count - head, max - copied)
            if n > 0 {
                let (from, to) = (head, destination + copied)
                blocks[0].withUnsafeBytes { to.copyMemory(from: $0.baseAddress! + from, byteCount: n) }
                copied += n
                head += n
            }
            // Stopped inside the block: `max` is reached.
            guard head == blocks[0].count else { break }
            head = 0
            guard blocks.count > 1 else {
                // The last block, read to its end, is emptied for more rather than freed.
                blocks[0].removeAll(keepingCapacity: true)
                break
            }
            blocks.removeFirst()
        }
        count -= copied
        return copied
    }

    mutating func removeAll() {
        blocks = []
        head = 0
        count = 0
    }
}
