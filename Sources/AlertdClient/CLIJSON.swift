import FoundationEssentials
import AlertdHTTP

/// How `--json` prints API values: as the daemon encodes them (sorted keys,
/// RFC 3339 times), so a script sees the same text either way.
package enum CLIJSON {
    package static func text<Value: Encodable>(_ value: Value) -> String {
        do {
            return String(decoding: try APIRepresentation.encoder.encode(value), as: UTF8.self)
        } catch {
            // The API types hold strings, numbers, dates and ids, which always encode.
            preconditionFailure("an API value failed to encode: \(error)")
        }
    }
}
