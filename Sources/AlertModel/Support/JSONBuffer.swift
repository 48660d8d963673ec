/// The bytes a ``JSONObject`` writes, through a pointer: room is made once
/// per field, where `Array.append` checks uniqueness and room for every
/// byte or run it adds. A ``JSONObject`` copies it before changing a buffer
/// another value shares, as an array would.
final class JSONBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    /// How many bytes are written.
    var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// A buffer of its own with the same bytes.
    func copy() -> JSONBuffer {
        let copy = JSONBuffer(capacity: capacity)
        copy.base.update(from: base, count: count)
        copy.count = count
        return copy
    }

    /// Makes room for `n` more bytes and says where they go; valid until
    /// the next call makes room.
    func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if count + n > capacity {
            capacity = max(count + n, capacity * 2)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            grown.update(from: base, count: count)
            base.deallocate()
            base = grown
        }
        return base + count
    }

    /// Appends `byte`.
    func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    /// The bytes written from `start` on.
    func bytes(from start: Int = 0) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + start, count: count - start)
    }
}
