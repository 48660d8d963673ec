import AlertModel

/// One alert's action links as a delivery offers them, all with one expiry:
/// the links that name no recipient, and the same links signed for one
/// recipient when a presenter that knows the address it sends to asks, so
/// the decision a link takes records who it was sent to.
public struct ActionLinks: Sendable, Equatable {
    let signer: ActionLinkSigner
    public let alertID: AlertID
    /// The alert's actions, confirm first.
    public let kinds: [ActionKind]
    /// When the links stop working, in Unix seconds.
    public let expires: Int64

    /// A link per action, naming `recipient` when it is a usable one (one
    /// line of plain text within ``AlertDecision/maxRecipientLength``); an
    /// address that is not gets the links that name nobody, which work the
    /// same and record no recipient.
    public func links(for recipient: String? = nil) -> [ActionKind: String] {
        let named = recipient.flatMap { AlertDecision.isRecipient($0) ? $0 : nil }
        var out: [ActionKind: String] = [:]
        for kind in kinds { out[kind] = signer.link(alertID, kind, expires: expires, recipient: named) }
        return out
    }
}
