import AlertModel

/// Alert specs decoded once per distinct stored text, for the open alerts
/// every claim reads while inhibition rules are in force (the sources are
/// found among them). Decoding all of them again for each claim made the
/// writer's thread spend most of a storm of 5,000 alerts in the JSON
/// reader. Byte for byte (``DecodedTextCache``): keyed by `String`, a spec
/// titled `café` composed answered for one titled `cafe` with a combining
/// accent, and a group listed one alert's title and labels for the other's.
package enum StoredSpecs {
    /// Some 15 MB at the most.
    static let cache = DecodedTextCache<AlertSpec>(capacity: 10_000) { try? AlertSpec.fromStorage($0) }

    /// The spec `text` holds; nil when it cannot be read.
    package static func spec(_ text: String) -> AlertSpec? { cache.value(text) }
}
