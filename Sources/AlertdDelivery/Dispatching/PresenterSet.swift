import AlertModel

/// The presenters the dispatcher delivers to, by the kind of delivery each
/// takes, with how many deliveries each may have in flight. Replaced whole
/// on reload.
public struct PresenterSet: Sendable {
    public struct Entry: Sendable {
        public let presenter: any AlertPresenter
        /// The presenter, when its attempt at one alert is one HTTP request:
        /// found once here, not at every attempt.
        let requester: (any HTTPRequestPresenter)?
        public let maxConcurrency: Int
        /// Whether it sends follow-ups (its definition's ``PresenterDefinition/followUps``).
        public let followUps: Bool
        /// How fast it may be sent to; nil for as fast as it takes them.
        public let rateLimit: RateLimit?

        public init(presenter: any AlertPresenter, maxConcurrency: Int, followUps: Bool = false, rateLimit: RateLimit? = nil) {
            self.presenter = presenter
            self.requester = presenter as? any HTTPRequestPresenter
            self.maxConcurrency = max(1, maxConcurrency)
            self.followUps = followUps
            self.rateLimit = rateLimit
        }
    }

    public private(set) var entries: [DeliveryKind: Entry]

    public init(_ entries: [Entry]) {
        self.entries = Dictionary(entries.map { ($0.presenter.kind, $0) }, uniquingKeysWith: { _, last in last })
    }

    public subscript(kind: DeliveryKind) -> Entry? { entries[kind] }

    /// Every kind served, in name order.
    public var kinds: [DeliveryKind] { entries.keys.sorted() }
}
