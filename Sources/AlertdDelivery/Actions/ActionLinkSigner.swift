import FoundationEssentials
import AlertModel
import AlertdCrypto

/// Signs and checks action links: URLs that take a decision on an alert
/// without alertctl, for chat buttons and e-mails. A token is an HMAC over
/// the alert id, the action and an expiry time, keyed by a secret that never
/// leaves the state directory; it grants that one decision on that one alert
/// until it expires, and is spent by construction when the alert is decided.
public struct ActionLinkSigner: Sendable {
    package let key: [UInt8]
    /// The base URL people reach the API at, e.g. `https://alertd.example`.
    public let publicURL: String
    /// How long a link stays valid when the alert does not expire sooner.
    public let lifetime: Duration

    public init(key: [UInt8], publicURL: String, lifetime: Duration = .seconds(7 * 24 * 3600)) {
        self.key = key
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.lifetime = lifetime
    }

    /// The link for `action` on `alert`, valid until the alert expires or the
    /// lifetime runs out, whichever is first.
    public func link(for alert: Alert, action: ActionKind, now: Date = Date()) -> String {
        var expiry = now.addingTimeInterval(lifetime.seconds)
        if let alertExpiry = alert.expiresAt, alertExpiry < expiry { expiry = alertExpiry }
        let expires = Int64(expiry.timeIntervalSince1970.rounded(.up))
        return "\(publicURL)/v1/alerts/\(alert.id)/actions/\(action.rawValue)?expires=\(expires)&token=\(token(alert.id, action, expires))"
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

    /// All links for the alert's actions.
    public func links(for alert: Alert, now: Date = Date()) -> [ActionKind: String] {
        var out: [ActionKind: String] = [:]
        for kind in ActionKind.allCases where alert.spec.action(kind) != nil { out[kind] = link(for: alert, action: kind, now: now) }
        return out
    }

    /// Why the token does not grant `action` on `id`, or nil when it does.
    public func refusal(id: AlertID, action: ActionKind, expires: String?, token: String?, now: Date = Date()) -> String? {
        guard let token, let expires, let seconds = Int64(expires) else {
            return "The link is incomplete: it needs its expires and token parameters."
        }
        guard constantTimeEquals(Array(token.utf8), Array(self.token(id, action, seconds).utf8)) else {
            return "The link's signature does not match; it was altered or is not from this alertd."
        }
        guard Double(seconds) >= now.timeIntervalSince1970 else {
            return "The link expired; decide with alertctl or ask for a new alert."
        }
        return nil
    }

    package func token(_ id: AlertID, _ action: ActionKind, _ expires: Int64) -> String {
        let mac = HMACSHA256.authenticate(key: key, message: Array("\(id.rawValue)|\(action.rawValue)|\(expires)".utf8))
        return Data(mac).base64EncodedString()
            .replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }
}
