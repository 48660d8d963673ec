import AlertModel

/// One type of presenter as the configuration names it (`"type": "webhook"`):
/// how its settings are read and checked, and how a presenter is made from
/// them. A new type is one file that conforms to this plus its line in
/// ``PresenterRegistry``; nothing else in alertd names it.
public protocol PresenterConfiguration: Sendable, Equatable {
    /// The `type` value that selects it.
    static var typeName: String { get }
    /// The keys it reads, besides `type` and `max_concurrency`.
    static var keys: [String] { get }
    /// Deliveries in flight at once unless `max_concurrency` says otherwise.
    static var defaultMaxConcurrency: Int { get }
    /// Whether its presenters are told when an alert they showed closes.
    static var followUps: FollowUpSupport { get }
    /// Settings that show the type at work, without `type`: what
    /// `alertctl render --to <type>` uses when given none, and what
    /// docs/CONFIGURATION.md shows (a test reads both).
    static var example: [String: Any] { get }

    /// Reads the settings from the presenter's object, reporting every
    /// problem to `reader` with its path (`presenters.ops.url: …`).
    init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader)

    /// Makes the presenter. Files the settings name (a secret) are read
    /// here, so a reload picks up a changed one and `--check-config` finds
    /// one that is missing.
    func makePresenter(name: String, context: PresenterContext) throws(PresenterSetupError) -> any AlertPresenter

    /// What the presenter would send for `alert`, without sending it and
    /// without reading a secret: secrets show as placeholders. Nil for types
    /// that show alerts right here (terminal, log), which render by presenting.
    /// With `delivery.followUp` set, the follow-up (`alert` is closed).
    func preview(of alert: Alert, delivery: DeliveryContext) -> PresenterPreview?

    /// What the presenter would send for a group notification; by default
    /// what it would send for the notification's summary alert.
    func preview(of notification: AlertGroupNotification, delivery: DeliveryContext) -> PresenterPreview?
}

extension PresenterConfiguration {
    /// One at a time keeps a terminal's blocks and a log's lines in order.
    public static var defaultMaxConcurrency: Int { 1 }

    public static var example: [String: Any] { [:] }

    public static var followUps: FollowUpSupport { .unsupported }

    public func preview(of alert: Alert, delivery: DeliveryContext) -> PresenterPreview? { nil }

    public func preview(of notification: AlertGroupNotification, delivery: DeliveryContext) -> PresenterPreview? {
        preview(of: notification.summaryAlert, delivery: delivery)
    }

    /// Equality across configurations of any type.
    public func isEqual(to other: any PresenterConfiguration) -> Bool {
        (other as? Self) == self
    }
}
