import FoundationEssentials
import AlertModel
import AlertdCrypto
import AlertdHTTP

/// Signs and checks action links: URLs that take a decision on an alert
/// without alertctl, for chat buttons and e-mails. A token is an HMAC over
/// the alert id, the action, an expiry time and, when the link names one,
/// the recipient it was sent to (`to=`), keyed by a secret that never
/// leaves the state directory; it grants that one decision on that one alert
/// until it expires, and is spent by construction when the alert is decided.
/// The recipient is signed so that the address a decision records is the
/// one alertd sent the link to: changing it breaks the signature. Links
/// without `to` (all links before recipients existed) stay valid.
public struct ActionLinkSigner: Sendable, Equatable {
    package let key: [UInt8]
    /// The base URL people reach the API at, e.g. `https://alertd.example`.
    public let publicURL: String
    /// How long a link stays valid when the alert does not expire sooner
    /// (`actions.link_lifetime`, which a reload changes).
    public var lifetime: Duration

    public init(key: [UInt8], publicURL: String, lifetime: Duration = .seconds(7 * 24 * 3600)) {
        self.key = key
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.lifetime = lifetime
    }

    /// The link for `action` on `alert`, valid until the alert expires or the
    /// lifetime runs out, whichever is first; naming `recipient` when given
    /// (see ``ActionLinks/links(for:)`` for which recipients are named).
    public func link(for alert: Alert, action: ActionKind, recipient: String? = nil, now: Date = Date()) -> String {
        link(alert.id, action, expires: expiry(for: alert, now: now), recipient: recipient)
    }

    /// When links made now for `alert` stop working, in Unix seconds.
    package func expiry(for alert: Alert, now: Date) -> Int64 {
        var expiry = now.addingTimeInterval(lifetime.seconds)
        if let alertExpiry = alert.expiresAt, alertExpiry < expiry { expiry = alertExpiry }
        return Int64(expiry.timeIntervalSince1970.rounded(.up))
    }

    package func link(_ id: AlertID, _ action: ActionKind, expires: Int64, recipient: String?) -> String {
        var query = "expires=\(expires)"
        if let recipient { query += "&to=\(HTTPRequestTarget.percentEncode(recipient))" }
        return "\(publicURL)/v1/alerts/\(id)/actions/\(action.rawValue)?\(query)&token=\(token(id, action, expires, recipient: recipient))"
    }

    /// What stands in for a link's token where the link is shown but must
    /// not work.
    public static let redactedToken = "REDACTED"

    /// `link` with its token replaced by ``redactedToken``: it still says
    /// which alert and action it is for, and until when, but grants nothing.
    /// For logs, journald and files: a link decides the alert for whoever
    /// holds it, and those outlive the alert and reach more people than
    /// were asked.
    public static func redacted(_ link: String) -> String {
        let parts = link.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return link }
        let query = parts[1].split(separator: "&", omittingEmptySubsequences: false).map { item in
            item.hasPrefix("token=") ? "token=\(redactedToken)" : String(item)
        }
        return parts[0] + "?" + query.joined(separator: "&")
    }

    /// The console's page of a group of alerts.
    public func groupURL(_ group: AlertGroupID) -> String { "\(publicURL)/ui/#/group/\(group.rawValue)" }

    /// All links for the alert's actions, naming no recipient.
    public func links(for alert: Alert, now: Date = Date()) -> [ActionKind: String] {
        delivering(alert, now: now).links()
    }

    /// The alert's action links as one delivery offers them: all with one
    /// expiry, signed for a recipient when the presenter asks.
    public func delivering(_ alert: Alert, now: Date = Date()) -> ActionLinks {
        ActionLinks(signer: self, alertID: alert.id, kinds: ActionKind.allCases.filter { alert.spec.action($0) != nil },
                    expires: expiry(for: alert, now: now))
    }

    /// Why the token does not grant `action` on `id` (for `recipient`, the
    /// link's `to`, when it has one), or nil when it does.
    public func refusal(id: AlertID, action: ActionKind, expires: String?, token: String?, recipient: String? = nil,
                        now: Date = Date()) -> String? {
        guard let token, let expires else {
            return "The link is incomplete: it needs its expires and token parameters."
        }
        // Only the digits alertd writes: `0…` or `+…` spelled the same
        // signed time otherwise, and a number past Int64 read as missing.
        guard let seconds = Int64(expires), expires.utf8.allSatisfy({ (0x30...0x39).contains($0) }), expires == String(seconds) else {
            return "The link's expires parameter is not as alertd writes it (the seconds since 1970, in digits); it was altered or cut short."
        }
        guard constantTimeEquals(Array(token.utf8), Array(self.token(id, action, seconds, recipient: recipient).utf8)) else {
            return recipient == nil ? "The link's signature does not match; it was altered or is not from this alertd."
                : "The link's signature does not match its alert, action, expiry and recipient; it was altered or is not from this alertd."
        }
        guard Double(seconds) >= now.timeIntervalSince1970 else {
            return "The link expired; decide with alertctl or ask for a new alert."
        }
        return nil
    }

    /// The signature. A recipient is appended after the expiry, which is
    /// digits only, so no link with one signs the same text as a link
    /// without, and none can be turned into the other.
    package func token(_ id: AlertID, _ action: ActionKind, _ expires: Int64, recipient: String? = nil) -> String {
        var message = "\(id.rawValue)|\(action.rawValue)|\(expires)"
        if let recipient { message += "|\(recipient)" }
        let mac = HMACSHA256.authenticate(key: key, message: Array(message.utf8))
        return Base64URL.encode(mac)
    }
}
