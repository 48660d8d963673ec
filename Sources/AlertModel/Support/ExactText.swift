/// A string compared and hashed by its UTF-8 bytes, as the store, silences
/// and filters compare text (``LabelMatcher/same(_:_:)``): as a `String`
/// key, `café` composed and `cafe` with a combining accent are one key, and
/// a cache keyed so answered for the other text.
public struct ExactText: Hashable, Sendable {
    public let text: String

    public init(_ text: String) {
        self.text = text
    }

    public static func == (a: ExactText, b: ExactText) -> Bool { LabelMatcher.same(a.text, b.text) }

    public func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
