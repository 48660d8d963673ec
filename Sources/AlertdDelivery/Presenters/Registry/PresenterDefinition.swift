import AlertModel

/// A configured presenter: its name, its type's settings, and how many
/// deliveries it may have in flight.
public struct PresenterDefinition: Sendable, Equatable {
    public var name: String
    public var configuration: any PresenterConfiguration
    /// Deliveries in flight at once to this presenter.
    public var maxConcurrency: Int
    /// What `max_concurrency` may be.
    public static let maxConcurrencyRange = 1...1_024
    /// Whether it is told when an alert it showed closes: its type's
    /// ``FollowUpSupport`` with its `follow_ups` setting.
    public var followUps: Bool
    /// Whether its `follow_ups` is set to false: its group notifications
    /// then tell it what fires and never what closed
    /// (``AlertGroupSettings/closingsUntold``).
    public var closingsUntold: Bool
    /// Its `rate` and `burst`; nil for no limit.
    public var rateLimit: RateLimit?

    public init(name: String, configuration: any PresenterConfiguration, maxConcurrency: Int? = nil, followUps: Bool? = nil,
                rateLimit: RateLimit? = nil) {
        self.rateLimit = rateLimit
        self.name = name
        self.configuration = configuration
        self.maxConcurrency = maxConcurrency ?? type(of: configuration).defaultMaxConcurrency
        self.followUps = type(of: configuration).followUps.enabled(followUps)
        closingsUntold = followUps == false
    }

    /// The configuration's `type`.
    public var typeName: String { type(of: configuration).typeName }

    public static func == (a: PresenterDefinition, b: PresenterDefinition) -> Bool {
        a.name == b.name && a.maxConcurrency == b.maxConcurrency && a.followUps == b.followUps && a.closingsUntold == b.closingsUntold
            && a.rateLimit == b.rateLimit
            && a.configuration.isEqual(to: b.configuration)
    }
}
