import FoundationEssentials
import AlertModel
import AlertdHTTP

extension StandardWebhookSigner {
    /// Whether ``requestHeaders(_:deliveryID:at:body:base:)`` sets `name`
    /// itself, over any presenter header of that name.
    package static func setsHeader(named name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered == "content-type" || lowered == "user-agent" || lowered.hasPrefix("webhook-")
    }

    /// The headers of every webhook alertd sends, presenter or handler call:
    /// JSON, who sent it, and Standard Webhooks' id and timestamp, signed
    /// when there is a secret. Unsigned, the id still lets a receiver drop
    /// retried duplicates. Set over `base` (a presenter's own headers).
    package static func requestHeaders(
        _ signer: StandardWebhookSigner?, deliveryID: DeliveryID, at date: Date, body: Data, base: HTTPHeaders = HTTPHeaders()
    ) -> HTTPHeaders {
        var headers = base
        headers.reserveCapacity(base.count + 5)
        headers.set("Content-Type", "application/json")
        headers.set("User-Agent", AlertdVersion.userAgent)
        let timestamp = Int64(date.timeIntervalSince1970)
        if let signer {
            for field in signer.headers(id: deliveryID.rawValue, timestamp: timestamp, body: body) { headers.set(field.name, field.value) }
        } else {
            headers.set("webhook-id", deliveryID.rawValue)
            headers.set("webhook-timestamp", String(timestamp))
        }
        return headers
    }
}
