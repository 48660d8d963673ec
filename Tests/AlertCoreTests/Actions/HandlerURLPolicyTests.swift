import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdSQLite
@testable import AlertdCrypto
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdLogging
@testable import AlertdCommandLine
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

@Suite struct HandlerURLPolicyTests {
    @Test func addressesParseInEverySpellingCurlReportsAndOnlyThose() throws {
        #expect(IPAddress("127.0.0.1")?.scope == .loopback)
        #expect(IPAddress("::ffff:127.0.0.1")?.scope == .loopback)
        #expect(IPAddress("::ffff:7f00:1")?.scope == .loopback)
        #expect(IPAddress("::1")?.scope == .loopback)
        #expect(IPAddress("169.254.169.254")?.scope == .linkLocal)
        #expect(IPAddress("fe80::1%eth0")?.scope == .linkLocal)
        #expect(IPAddress("10.1.2.3")?.scope == .privateNetwork)
        #expect(IPAddress("172.20.0.1")?.scope == .privateNetwork)
        #expect(IPAddress("172.32.0.1")?.scope == .global)
        #expect(IPAddress("192.168.1.1")?.scope == .privateNetwork)
        #expect(IPAddress("fd00::1")?.scope == .privateNetwork)
        #expect(IPAddress("0.0.0.0")?.scope == .unspecified)
        #expect(IPAddress("::")?.scope == .unspecified)
        #expect(IPAddress("64:ff9b::7f00:1")?.scope == .loopback)
        #expect(IPAddress("2002:a9fe:a9fe::1")?.scope == .linkLocal)
        #expect(IPAddress("255.255.255.255")?.scope == .reserved)
        #expect(IPAddress("240.0.0.1")?.scope == .reserved)
        #expect(IPAddress("93.184.216.34")?.scope == .global)
        #expect(IPAddress("2001:db8::1")?.scope == .global)
        // Octal, hex and single-number spellings are not addresses to us; curl
        // resolves them, and the connect-time check sees the real address.
        #expect(IPAddress("0177.0.0.1") == nil)
        #expect(IPAddress("2130706433") == nil)
        #expect(IPAddress("0x7f.0.0.1") == nil)
        #expect(IPAddress("1.2.3") == nil)
        #expect(IPAddress("1::2::3") == nil)
    }

    @Test func rangesContainTheirAddresses() throws {
        let r = try #require(IPRange("10.0.0.0/8"))
        #expect(r.contains(try #require(IPAddress("10.200.1.1"))))
        #expect(!r.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(try #require(IPRange("fe80::/10")).contains(try #require(IPAddress("fe80::abcd"))))
        #expect(try #require(IPRange("127.0.0.1")).contains(try #require(IPAddress("::ffff:127.0.0.1"))))
        #expect(IPRange("10.0.0.0/33") == nil)
    }

    @Test func anEmptyListAllowsPublicAddressesOnly() throws {
        let policy = HandlerURLPolicy.publicOnly
        #expect(policy.refusal(for: "https://anything.example/x") == nil)
        #expect(policy.refusal(connectingTo: try #require(IPAddress("93.184.216.34"))) == nil)
        for address in ["127.0.0.1", "169.254.169.254", "10.0.0.1", "::1", "::ffff:127.0.0.1", "fe80::1"] {
            #expect(policy.refusal(connectingTo: try #require(IPAddress(address))) != nil, "\(address)")
        }
    }

    @Test func theListMustMatchTheURLAndNameSpecialAddressesExplicitly() throws {
        let (policy, problems) = HandlerURLPolicy.parse(["https://ops.example/hooks/", "*.corp.example", "http://127.0.0.1:8080/", "10.0.0.0/8"])
        #expect(problems.isEmpty)
        #expect(policy.refusal(for: "https://ops.example/hooks/restart") == nil)
        #expect(policy.refusal(for: "https://ops.example/other") != nil)
        #expect(policy.refusal(for: "https://ci.corp.example/x") == nil)
        #expect(policy.refusal(for: "https://evil.example/x") != nil)
        #expect(policy.refusal(connectingTo: try #require(IPAddress("127.0.0.1"))) == nil)
        #expect(policy.refusal(connectingTo: try #require(IPAddress("10.9.9.9"))) == nil)
        #expect(policy.refusal(connectingTo: try #require(IPAddress("192.168.0.1"))) != nil)
        // Metadata services stay out unless named.
        #expect(policy.refusal(connectingTo: try #require(IPAddress("169.254.169.254")))?.contains("link-local") == true)
        // Prefixes match by parts, not by characters.
        let (strict, _) = HandlerURLPolicy.parse(["https://ops.example", "https://ci.example/hooks"])
        #expect(strict.refusal(for: "https://ops.example/anything") == nil)
        #expect(strict.refusal(for: "https://ops.example.evil.com/") != nil)
        #expect(strict.refusal(for: "https://ops.example@evil.com/") != nil)
        #expect(strict.refusal(for: "https://ops.example:8443/") != nil)
        #expect(strict.refusal(for: "https://ci.example/hooks/deploy") == nil)
        #expect(strict.refusal(for: "https://ci.example/hooksevil") != nil)
        let (_, bad) = HandlerURLPolicy.parse(["ftp://x/", "not a host!"])
        #expect(bad.count == 2)
    }
}

@Suite struct ActionLinkSignerTests {
    let signer = ActionLinkSigner(key: Array(repeating: 7, count: 32), publicURL: "https://alertd.example/")

    func alert(expires: AlertDuration? = nil) throws -> Alert {
        var b = AlertSpec.Builder().title("Deploy?").confirm("Deploy", handler: "https://ci.example/deploy")
        if let expires { b = b.expires(after: expires) }
        return Alert(spec: try b.build().get())
    }

    func parts(_ link: String) -> (path: String, expires: String?, token: String?) {
        let c = URLComponents(string: link)!
        return (c.path, c.queryItems?.first { $0.name == "expires" }?.value, c.queryItems?.first { $0.name == "token" }?.value)
    }

    @Test func aLinkGrantsExactlyItsActionOnItsAlert() throws {
        let a = try alert()
        let link = signer.link(for: a, action: .confirm)
        #expect(link.hasPrefix("https://alertd.example/v1/alerts/\(a.id)/actions/confirm?expires="))
        let p = parts(link)
        #expect(signer.refusal(id: a.id, action: .confirm, expires: p.expires, token: p.token) == nil)
        #expect(signer.refusal(id: a.id, action: .cancel, expires: p.expires, token: p.token) != nil)
        let other = try alert()
        #expect(signer.refusal(id: other.id, action: .confirm, expires: p.expires, token: p.token) != nil)
        // Moving the expiry forward breaks the signature.
        #expect(signer.refusal(id: a.id, action: .confirm, expires: String(Int(p.expires!)! + 3600), token: p.token) != nil)
        let otherKey = ActionLinkSigner(key: Array(repeating: 8, count: 32), publicURL: "https://alertd.example")
        #expect(otherKey.refusal(id: a.id, action: .confirm, expires: p.expires, token: p.token) != nil)
        #expect(signer.links(for: a).keys.sorted { $0.rawValue < $1.rawValue } == [.confirm])
    }

    @Test func linksExpireWithTheAlertOrTheirLifetime() throws {
        let a = try alert(expires: .minutes(10))
        let p = parts(signer.link(for: a, action: .confirm))
        #expect(signer.refusal(id: a.id, action: .confirm, expires: p.expires, token: p.token, now: Date().addingTimeInterval(599)) == nil)
        #expect(signer.refusal(id: a.id, action: .confirm, expires: p.expires, token: p.token, now: Date().addingTimeInterval(700))?.contains("expired") == true)
    }
}
