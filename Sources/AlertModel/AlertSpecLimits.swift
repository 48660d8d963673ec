/// The bounds `AlertSpec.Builder.build()` enforces. The defaults suit chat
/// bridges and terminals; an operator may tighten them in the daemon's config.
public struct AlertSpecLimits: Sendable, Equatable {
    /// Longest title, in characters. A title is a headline, not a paragraph.
    public var maxTitleLength: Int = 200
    /// Longest message, in characters (8 KiB of ASCII).
    public var maxMessageLength: Int = 8_192
    /// Most labels on one alert.
    public var maxLabels: Int = 64
    /// Longest label name, in characters.
    public var maxLabelNameLength: Int = 128
    /// Longest label value, in characters.
    public var maxLabelValueLength: Int = 1_024
    /// Longest action label, in characters: it has to fit on a button.
    public var maxActionLabelLength: Int = 40
    /// Longest handler URL, in bytes.
    public var maxURLLength: Int = 2_048
    /// Longest dedup key, in characters.
    public var maxDedupKeyLength: Int = 255
    /// Longest expiry: 30 days. Anything longer is almost certainly a unit mistake.
    public var maxExpiry: AlertDuration = .seconds(30 * 24 * 3600)

    /// These are the widest a daemon may be configured to take, not any one
    /// daemon's (``widestConfigurable``): a problem against them says so, or
    /// a client names a limit the daemon it sends to does not have.
    public var areWidestConfigurable = false

    public init() {}

    /// The end of a problem's sentence that names `limit`, the daemon
    /// setting `setting` whose default is `defaultLimit`.
    func limitText(_ limit: Int, setting: String, defaultLimit: Int) -> String {
        guard areWidestConfigurable else { return "the limit is \(limit)" }
        return "no alertd takes more than \(limit) (its `limits.\(setting)`, \(defaultLimit) unless set)"
    }

    /// The limits used when nothing else is configured.
    public static let `default` = AlertSpecLimits()

    /// How far the daemon's configuration may set the three limits it
    /// takes (`limits.max_labels`, `max_title_length`, `max_message_length`).
    public static let configurableLabels = 0...1_000
    public static let configurableTitleLength = 1...10_000
    public static let configurableMessageLength = 1...1_000_000

    /// The defaults, with the configurable limits at their widest: what a
    /// client checks before sending, since only the daemon knows its own
    /// (it answers 422 with the same problems when an alert passes these).
    public static let widestConfigurable: AlertSpecLimits = {
        var l = AlertSpecLimits()
        l.maxLabels = configurableLabels.upperBound
        l.maxTitleLength = configurableTitleLength.upperBound
        l.maxMessageLength = configurableMessageLength.upperBound
        l.areWidestConfigurable = true
        return l
    }()
}
