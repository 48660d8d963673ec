import AlertModel

/// Where a reload sends the alerts of the groups whose routes it removed or
/// stopped grouping (``StoreRules/follow(_:routes:rerouting:now:in:)``).
public struct GroupRerouting: Sendable {
    /// The routes that grouped before the reload and do not now. Only
    /// their groups are rerouted: a node of a cluster started on an older
    /// configuration must not undo the groups of a route another node's
    /// newer one added.
    public var routes: Set<String>
    /// An alert as the configuration now routes it.
    public var submission: @Sendable (Alert) -> AlertSubmission

    public init(routes: Set<String>, submission: @escaping @Sendable (Alert) -> AlertSubmission) {
        self.routes = routes
        self.submission = submission
    }
}
