/// HTTP header fields in the order they were given. Lookups ignore ASCII case,
/// as RFC 9110 requires; repeated fields are all kept.
public struct HTTPHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// One header line.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Every field, in order.
    public private(set) var fields: [Field]

    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value of the named field.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of the named field, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// Adds a field, keeping any others of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field of that name with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) {
        // Mostly there is none to remove: a look costs less than a rewrite.
        guard fields.contains(where: { Self.sameName($0.name, name) }) else { return }
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// Makes room for `count` fields in all, so headers built a field at a
    /// time (every request alertd sends, every response it reads) take one
    /// allocation rather than one per doubling.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Rewrites the last field; for header continuation lines.
    package mutating func replaceLast(with field: Field) {
        guard !fields.isEmpty else { return }
        fields[fields.count - 1] = field
    }

    public var isEmpty: Bool { fields.isEmpty }
    public var count: Int { fields.count }

    /// ASCII case-insensitive comparison, without allocating lowercased
    /// copies. Over the two names' bytes in place: a request looks up a
    /// dozen fields, and stepping the generic UTF-8 iterators cost 250
    /// instructions a comparison.
    package static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                for i in x.indices where x[i] != y[i] {
                    if x[i] | 0x20 != y[i] | 0x20 { return false }
                    // Only letters may differ in case; '@' vs '`' and friends differ in bit 5 too.
                    let lower = x[i] | 0x20
                    if lower < UInt8(ascii: "a") || lower > UInt8(ascii: "z") { return false }
                }
                return true
            }
        }
    }
}

extension HTTPHeaders: Sequence {
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}
