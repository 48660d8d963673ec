/// What became of one submission.
public struct SubmissionResult: Sendable, Equatable, Codable {
    /// The new alert's id, or the id of the open alert it was folded into.
    public let id: AlertID
    public let state: AlertState
    public let deduplicated: Bool

    public init(id: AlertID, state: AlertState, deduplicated: Bool) {
        self.id = id
        self.state = state
        self.deduplicated = deduplicated
    }
}
