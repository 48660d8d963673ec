/// What opening a store did to its tables: made them (`from` 0), or
/// brought them from an older alertd's schema up to this one's. Worth a
/// line in the log: after an upgrade, the older alertd no longer opens
/// the store.
public struct SchemaUpgrade: Sendable, Equatable {
    /// The schema the store had; 0 for a store just made.
    public let from: Int
    /// The schema it has now: this alertd's.
    public let to: Int

    public init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }
}
