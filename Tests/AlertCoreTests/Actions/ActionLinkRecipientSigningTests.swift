import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdDelivery

/// Links that name their recipient: the address is inside the signature,
/// links without one keep working, and neither can become the other.
@Suite struct ActionLinkRecipientSigningTests {
    let signer = ActionLinkSigner(key: Array(repeating: 1, count: 32), publicURL: "https://alertd.example/")

    func alert() throws -> Alert {
        Alert(spec: try AlertSpec.Builder().title("Deploy?").confirm("Deploy", handler: "https://ci.example/d")
            .cancel("Abort", handler: "https://ci.example/a").build().get())
    }

    /// The query of `link`, decoded.
    func query(_ link: String) -> [String: String] {
        let request = HTTPRequest(method: "POST", target: String(link.dropFirst("https://alertd.example".count)))
        return Dictionary(request.queryItems.map { ($0.name, $0.value) }) { a, _ in a }
    }

    func refusal(_ id: AlertID, _ q: [String: String], action: ActionKind = .confirm) -> String? {
        signer.refusal(id: id, action: action, expires: q["expires"], token: q["token"], recipient: q["to"])
    }

    @Test func aRecipientIsSignedAndCannotBeChangedAddedOrRemoved() throws {
        let a = try alert()
        let links = signer.delivering(a)
        let plain = try #require(links.links()[.confirm])
        let named = try #require(links.links(for: "alice+ops@example.com")[.confirm])
        #expect(named.hasPrefix("https://alertd.example/v1/alerts/\(a.id)/actions/confirm?expires=\(links.expires)&to=alice%2Bops%40example.com&token="))
        #expect(!plain.contains("to="))
        // Short enough for a push notification's URL field (Pushover: 512).
        #expect(named.utf8.count < 200)

        var q = query(named)
        #expect(q["to"] == "alice+ops@example.com")
        #expect(refusal(a.id, q) == nil)
        #expect(refusal(a.id, query(plain)) == nil)

        q["to"] = "bob@example.com"
        #expect(refusal(a.id, q)?.contains("signature does not match its alert, action, expiry and recipient") == true)
        q["to"] = nil
        #expect(refusal(a.id, q) != nil, "removing the recipient breaks the signature")
        var added = query(plain)
        added["to"] = "alice+ops@example.com"
        #expect(refusal(a.id, added) != nil, "adding a recipient to a link without one breaks it")
        #expect(refusal(a.id, query(named), action: .cancel) != nil)
    }

    @Test func anAddressThatCannotBeARecipientGetsLinksThatNameNobody() throws {
        let links = signer.delivering(try alert())
        for bad in ["", "evil\r\nheader@example.com", String(repeating: "a", count: 300) + "@example.com"] {
            #expect(links.links(for: bad) == links.links(), "\(bad.debugDescription)")
        }
        // A delivery without a signer keeps its fixed links for every recipient.
        let fixed = DeliveryContext(deliveryID: "d.0", actionLinks: [.confirm: "https://x/confirm"])
        #expect(!fixed.signsPerRecipient)
        #expect(fixed.addressed(to: "alice@example.com") == fixed)
        let signed = DeliveryContext(deliveryID: "d.0", links: links)
        #expect(signed.signsPerRecipient)
        #expect(signed.addressed(to: "alice@example.com").actionLinks == links.links(for: "alice@example.com"))
    }
}
