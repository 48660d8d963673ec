/// A query parameter's whole number, in digits alone: `Int64(_:)` also
/// takes a sign (`limit=+5`), which the API's documents do not allow.
enum QueryNumber {
    static func value(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}
