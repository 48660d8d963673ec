import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdCommandLine
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient

@Suite struct HandlerURLPolicyTests {
    func allows(_ policy: HandlerURLPolicy, _ url: String) -> Bool {
        if case .success = policy.check(url) { true } else { false }
    }

    /// Why `policy` refuses a connection to `address` for a call of `url`.
    func refusal(_ policy: HandlerURLPolicy, _ address: String, calling url: String = "https://hooks.example/x") throws -> String? {
        policy.refusal(connectingTo: try #require(IPAddress(address)), calling: try HandlerURL(url))
    }

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
        // Local-use NAT64, site-local, Teredo and discard-only passed as public:
        // where a translator serves 64:ff9b:1::/48, it reaches 169.254.169.254.
        #expect(IPAddress("64:ff9b:1::a9fe:a9fe")?.scope == .privateNetwork)
        #expect(IPAddress("fec0::1")?.scope == .privateNetwork)
        #expect(IPAddress("2001::1")?.scope == .reserved)
        #expect(IPAddress("100::1")?.scope == .reserved)
        #expect(IPAddress("2001:db8::1")?.scope == .global)
        #expect(IPAddress("2001:4860::8888")?.scope == .global)
        // IPv4-translated (RFC 2765): passed as public.
        #expect(IPAddress("::ffff:0:127.0.0.1")?.scope == .loopback)
        #expect(IPAddress("::ffff:0:a9fe:a9fe")?.scope == .linkLocal)
        #expect(IPAddress("::ffff:0:8.8.8.8")?.scope == .global)
        // IPv4-compatible, deprecated: `[::127.0.0.1]` passed the check as a public address.
        #expect(IPAddress("::127.0.0.1")?.scope == .reserved)
        #expect(IPAddress("::8.8.8.8")?.scope == .reserved)
        #expect(IPAddress("::1")?.scope == .loopback)
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

    /// Limits kept per client count an IPv6 client by its /64, as the
    /// wrong-token throttle did: per address, one host's /64 held every
    /// event stream.
    @Test func anIPv6ClientIsItsSlash64() {
        #expect(IPAddress.client("2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(IPAddress.client("2001:db8:1:2:ffff::9") == IPAddress.client("2001:db8:1:2::1"))
        #expect(IPAddress.client("2001:db8:1:3::1") != IPAddress.client("2001:db8:1:2::1"))
        #expect(IPAddress.client("192.0.2.7") == "192.0.2.7")
        #expect(IPAddress.client("::ffff:192.0.2.7") == "192.0.2.7")
        #expect(IPAddress.client("not an address") == "not an address")
    }

    @Test func rangesContainTheirAddresses() throws {
        let r = try #require(IPRange("10.0.0.0/8"))
        #expect(r.contains(try #require(IPAddress("10.200.1.1"))))
        #expect(!r.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(try #require(IPRange("fe80::/10")).contains(try #require(IPAddress("fe80::abcd"))))
        #expect(try #require(IPRange("127.0.0.1")).contains(try #require(IPAddress("::ffff:127.0.0.1"))))
        #expect(IPRange("10.0.0.0/33") == nil)
        // No address, or no length after the slash: none (the first two trapped).
        for text in ["", "/", "/8", "10.0.0.0/", "   "] { #expect(IPRange(text) == nil, "\(text)") }
    }

    @Test func anEmptyListAllowsPublicAddressesOnly() throws {
        let policy = HandlerURLPolicy.publicOnly
        #expect(allows(policy, "https://anything.example/x"))
        #expect(try refusal(policy, "93.184.216.34") == nil)
        for address in ["127.0.0.1", "169.254.169.254", "10.0.0.1", "::1", "::ffff:127.0.0.1", "fe80::1"] {
            #expect(try refusal(policy, address) != nil, "\(address)")
        }
    }

    /// An address in another spelling was taken as a host name, which no
    /// URL's host could match (a URL's `127.1` is read as 127.0.0.1): the
    /// operator meant to open loopback and opened nothing, without a word.
    /// An IPv6 address in brackets, as a URL writes it, is an address.
    @Test func anAddressInAnotherSpellingIsRefusedAndOneInBracketsTaken() throws {
        let (_, problems) = HandlerURLPolicy.parse(["127.1", "2130706433", "0x7f000001", "localhost"])
        #expect(problems == [
            "[0]: `127.1` is the address 127.0.0.1 written another way; write it as 127.0.0.1",
            "[1]: `2130706433` is the address 127.0.0.1 written another way; write it as 127.0.0.1",
            "[2]: `0x7f000001` is the address 127.0.0.1 written another way; write it as 127.0.0.1",
        ])
        let (bracketed, none) = HandlerURLPolicy.parse(["[::1]"])
        #expect(none.isEmpty)
        #expect(try refusal(bracketed, "::1") == nil)
    }

    @Test func theListMustMatchTheURLAndNameSpecialAddressesExplicitly() throws {
        let (policy, problems) = HandlerURLPolicy.parse(["https://ops.example/hooks/", "*.corp.example", "http://127.0.0.1:8080/", "10.0.0.0/8"])
        #expect(problems.isEmpty)
        #expect(allows(policy, "https://ops.example/hooks/restart"))
        #expect(!allows(policy, "https://ops.example/other"))
        #expect(allows(policy, "https://ci.corp.example/x"))
        #expect(!allows(policy, "https://evil.example/x"))
        #expect(try refusal(policy, "127.0.0.1", calling: "http://127.0.0.1:8080/x") == nil)
        #expect(try refusal(policy, "10.9.9.9") == nil)
        #expect(try refusal(policy, "192.168.0.1") != nil)
        // Metadata services stay out unless named.
        #expect(try refusal(policy, "169.254.169.254")?.contains("link-local") == true)
        // Prefixes match by parts, not by characters.
        let (strict, _) = HandlerURLPolicy.parse(["https://ops.example", "https://ci.example/hooks"])
        #expect(allows(strict, "https://ops.example/anything"))
        #expect(!allows(strict, "https://ops.example.evil.com/"))
        #expect(!allows(strict, "https://ops.example@evil.com/"))
        #expect(!allows(strict, "https://ops.example:8443/"))
        #expect(allows(strict, "https://ci.example/hooks/deploy"))
        #expect(!allows(strict, "https://ci.example/hooksevil"))
        let (_, bad) = HandlerURLPolicy.parse(["ftp://x/", "not a host!", "https://u:p@ops.example/", "https://ops.example/a%2fb/"])
        #expect(bad.count == 4)
        #expect(!bad.joined().contains("u:p"), "\(bad)")
    }

    /// A prefix entry with a literal address opens that address for URLs
    /// within it only: with a host entry besides, a name that resolves to
    /// the address had reached every port and path there.
    @Test func aURLPrefixOpensItsAddressOnlyWithinThePrefix() throws {
        let (policy, problems) = HandlerURLPolicy.parse(["http://127.0.0.1:8080/hooks/", "localhost", "*.corp.example", "http://10.0.0.5:8443/hooks/"])
        #expect(problems.isEmpty)
        #expect(allows(policy, "http://localhost:9999/internal/admin"), "the URL check passes by the host entry")
        #expect(try refusal(policy, "127.0.0.1", calling: "http://localhost:9999/internal/admin")?
            .contains("only for URLs within http://127.0.0.1:8080/hooks/") == true)
        #expect(try refusal(policy, "127.0.0.1", calling: "http://localhost:8080/internal/admin") != nil)
        #expect(try refusal(policy, "127.0.0.1", calling: "https://localhost:8080/hooks/a") != nil)
        #expect(try refusal(policy, "127.0.0.1", calling: "http://localhost:8080/hooks/deploy") == nil)
        #expect(try refusal(policy, "10.0.0.5", calling: "http://db.corp.example:5432/") != nil)
        #expect(try refusal(policy, "10.0.0.5", calling: "http://ci.corp.example:8443/hooks/x") == nil)
        // The literal spelling is refused at submission, as before.
        #expect(!allows(policy, "http://127.0.0.1:9999/internal/admin"))
        #expect(allows(policy, "http://127.0.0.1:8080/hooks/deploy"))
    }

    @Test func urlHostsAreReadAsLibcurlReadsThem() throws {
        for spelling in ["127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.0.0.1", "0x7f.1", "127.1", "0177.0.0.01"] {
            #expect(IPAddress(urlHost: spelling)?.description == "127.0.0.1", "\(spelling)")
        }
        #expect(IPAddress(urlHost: "[::1]")?.scope == .loopback)
        #expect(IPAddress(urlHost: "[::ffff:169.254.169.254]")?.description == "169.254.169.254")
        for name in ["ops.example", "1.2.3.4.5", "08.0.0.1", "0x", "1.+2.3.4", "256.0.0.1", "1.2.3.256", "1.16777216", "4294967296", "1..2", "127.0.0.1.", "[::1"] {
            #expect(IPAddress(urlHost: name) == nil, "\(name)")
        }
    }

    @Test func aHandlerURLIsRebuiltFromWhatWasChecked() throws {
        let cases: [(String, String)] = [
            ("https://ops.example/hooks/../admin/delete", "https://ops.example/admin/delete"),
            ("https://ops.example/hooks/%2e%2e/admin", "https://ops.example/admin"),
            ("https://ops.example/hooks/%2E%2E/admin", "https://ops.example/admin"),
            ("https://ops.example/hooks/.%2e/admin", "https://ops.example/admin"),
            ("https://ops.example/hooks/./x/..", "https://ops.example/hooks/"),
            ("https://ops.example/../../etc", "https://ops.example/etc"),
            ("HTTPS://Ops.Example:8443?q=1#frag", "https://ops.example:8443/?q=1"),
            ("http://0x7f.1:8080/a", "http://127.0.0.1:8080/a"),
            ("http://[::1]:8080/a", "http://[::1]:8080/a"),
            ("http://[0:0:0:0:0:0:0:1]/a", "http://[::1]/a"),
            ("http://[2001:db8:0:0:1:0:0:1]/a", "http://[2001:db8::1:0:0:1]/a"),
            ("http://[2001:DB8:1:2:3:4:0:8]/a", "http://[2001:db8:1:2:3:4:0:8]/a"),
            ("http://[::ffff:7f00:1]/a", "http://127.0.0.1/a"),
            ("http://[fe80::]/a", "http://[fe80::]/a"),
            ("https://user:pa%40ss@ops.example/a", "https://user:pa%40ss@ops.example/a"),
        ]
        for (input, expected) in cases {
            #expect(try HandlerURL(input).string == expected, "\(input)")
        }
        #expect(try HandlerURL("https://user:secret@ops.example/a").description == "https://***@ops.example/a")
        // `..%3f` and `..%23` end the path at `..` for a proxy that decodes before it forwards.
        for ambiguous in ["/hooks/..%2fadmin", "/hooks/a%5Cb", "/hooks/..;/admin", "/hooks/.%2e%3Bx/admin", "/hooks/a%00",
                          "/hooks/..%3f/x", "/hooks/..%23/x", "/hooks/.%2e%3Fq", "/hooks/..%252f%3f"] {
            #expect(try HandlerURL("https://ops.example" + ambiguous).hasAmbiguousPath, "\(ambiguous)")
        }
        #expect(try !HandlerURL("https://ops.example/hooks/a;b/c%2e").hasAmbiguousPath)
        #expect(try !HandlerURL("https://ops.example/hooks/a%3fb/c%23d").hasAmbiguousPath)
        for unusable in ["ftp://ops.example/", "https:///x", "https://ops%2eexample/", "https://[fe80::1%25eth0]/", "https://ops.example:0/"] {
            #expect(throws: HandlerURL.Unusable.self, "\(unusable)") { try HandlerURL(unusable) }
        }
    }

    @Test func dotSegmentsCannotEscapeAURLPrefix() throws {
        let (policy, problems) = HandlerURLPolicy.parse(["https://ops.example/hooks/"])
        #expect(problems.isEmpty)
        for escape in ["/hooks/../admin/delete", "/hooks/%2e%2e/admin", "/hooks/%2E%2E/admin", "/hooks/.%2E/admin",
                       "/hooks/x/../../admin", "/hooks/..%2fadmin", "/hooks/..%2Fadmin", "/hooks/..%5cadmin", "/hooks/..;/admin",
                       // Decoded twice (a proxy, then its server), and overlong UTF-8 `.` and `/` for lenient decoders.
                       "/hooks/%252e%252e/admin", "/hooks/%25252E%25252e/admin", "/hooks/..%252fadmin", "/hooks/a%255cb",
                       "/hooks/%c0%ae%c0%ae/admin", "/hooks/%e0%80%ae%e0%80%ae/admin", "/hooks/..%c0%afadmin",
                       // The first decoding makes the escape the second decodes, from other escapes.
                       "/hooks/%252%65%252%65/admin", "/hooks/%25%32%65%25%32%65/admin", "/hooks/..%25%32%66admin",
                       "/hooks/..%25%35%63admin",
                       // `%uXXXX` (IIS), trailing dots and spaces (Windows), dots NFKC makes.
                       "/hooks/%u002e%u002e/admin", "/hooks/%U002E%U002E/admin", "/hooks/..%20/admin", "/hooks/.%2e%09/admin",
                       "/hooks/.../admin", "/hooks/%2e%2e%2e/admin", "/hooks/%EF%BC%8E%EF%BC%8E/admin", "/hooks/%E2%80%A5/admin",
                       "/hooks/%252e%252e%2520/admin", "/hooks/..%C2%A0/admin", "/hooks/..%E3%80%80/admin",
                       "/hooks/%EF%B8%B0/admin", "/hooks/%EF%B8%99/admin", "/hooks/..%EF%BC%8Fadmin", "/hooks/..%EF%BC%BCadmin",
                       "/hooks/..%EF%B9%A8admin", "/hooks/%EF%BC%8E%EF%BC%8E%EF%BC%8Fadmin",
                       // What trim(), strip() or a form decoder leaves as `..`.
                       "/hooks/..%0a/admin", "/hooks/..%0D/admin", "/hooks/..%0b/admin", "/hooks/..%C2%85/admin", "/hooks/..+/admin",
                       "/hooks/..%E2%80%8B/admin", "/hooks/..%C2%AD/admin", "/hooks/%2B../admin",
                       // The same before path parameters, which servlet containers drop.
                       "/hooks/..%20;x/admin", "/hooks/...;x/admin", "/hooks/..+%3Bx/admin", "/hooks/..%E2%80%8B;x/admin"] {
            #expect(!allows(policy, "https://ops.example" + escape), "\(escape)")
        }
        // Text that is only text still matches: an encoded `%` and UTF-8 that decodes.
        #expect(allows(policy, "https://ops.example/hooks/50%25-full"))
        #expect(allows(policy, "https://ops.example/hooks/caf%C3%A9"))
        #expect(allows(policy, "https://ops.example/hooks/v1.2%20beta/x."))
        #expect(allows(policy, "https://ops.example/hooks/%E6%97%A5%E6%9C%AC/stra%C3%9Fe"))
        #expect(allows(policy, "https://ops.example/hooks/c++/a+b"))
        #expect(try policy.check("https://ops.example/hooks/x/../restart").get().string == "https://ops.example/hooks/restart")
        // A whole origin allowed: nothing to escape from.
        let (origin, _) = HandlerURLPolicy.parse(["https://ops.example/"])
        #expect(allows(origin, "https://ops.example/a%2fb"))
    }

    @Test func literalInternalAddressesAreRefusedFromTheURLAlone() throws {
        for url in ["http://169.254.169.254/latest/meta-data/", "http://2130706433:8080/", "http://0177.0.0.1/", "http://[::1]/",
                    "http://[::ffff:10.0.0.1]/", "http://10.1.2.3/", "http://0/"] {
            guard case .failure(.internalAddress) = HandlerURLPolicy.publicOnly.check(url) else {
                Issue.record("\(url) was not refused as an internal address")
                continue
            }
        }
        #expect(allows(.publicOnly, "http://93.184.216.34/"))
        // Names are left to the connect-time check: they resolve later.
        #expect(allows(.publicOnly, "http://localhost:8080/"))
        let (listed, _) = HandlerURLPolicy.parse(["10.0.0.0/8", "http://127.0.0.1:9000/"])
        #expect(allows(listed, "http://10.1.2.3/x"))
        #expect(allows(listed, "http://127.0.0.1:9000/hook"))
        #expect(!allows(listed, "http://127.0.0.1:9001/hook"))
    }

    @Test func userInfoNeverReachesAMessage() throws {
        #expect(URLRedaction.redactingUserInfo("https://ops:s3cret@ops.example/x?y=1") == "https://***@ops.example/x?y=1")
        #expect(URLRedaction.redactingUserInfo("https://tok@en@ops.example") == "https://***@ops.example")
        #expect(URLRedaction.redactingUserInfo("https://ops.example/a@b") == "https://ops.example/a@b")
        #expect(URLRedaction.redactingUserInfo("not a url") == "not a url")
        let (policy, _) = HandlerURLPolicy.parse(["https://ops.example/hooks/"])
        guard case .failure(let refusal) = policy.check("https://ops:s3cret@evil.example/") else {
            Issue.record("not refused")
            return
        }
        #expect(!refusal.message.contains("s3cret"))
        let error = HTTPClientError.couldNotConnect(url: HTTPClientRequest(url: "http://u:s3cret@h/").redactedURL, address: "h:80", reason: "x")
        #expect(!error.message.contains("s3cret"))
    }

    /// What a handler URL shows of itself, in the API and in its call's
    /// `last_error` alike: no user info, no query values.
    @Test func aHandlerURLShowsNoQueryValues() throws {
        #expect(URLRedaction.shownHandlerURL("https://ops:s3cret@ci.example/go?job=7&sig=abc#top") == "https://***@ci.example/go?job=***&sig=***#top")
        #expect(URLRedaction.shownHandlerURL("https://ci.example/go?t0ken&&x=") == "https://ci.example/go?***&&x=***")
        #expect(URLRedaction.shownHandlerURL("https://ci.example/go?") == "https://ci.example/go?")
        #expect(URLRedaction.shownHandlerURL("https://ci.example/go") == "https://ci.example/go")
        let refused = WebhookPresenter.outcome(for: .couldNotConnect(url: "https://ci.example/go?sig=abc", address: "ci.example:443", reason: "refused"),
                                               url: "https://ci.example/go?sig=abc", naming: URLRedaction.shownHandlerURL)
        #expect(!(refused.reason ?? "").contains("abc"), "\(refused)")
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
        // The same time spelled otherwise is refused, and says what is wrong with it.
        for spelled in ["0" + p.expires!, "+" + p.expires!, " " + p.expires!, "99999999999999999999999999"] {
            #expect(signer.refusal(id: a.id, action: .confirm, expires: spelled, token: p.token)
                == "The link's expires parameter is not as alertd writes it (the seconds since 1970, in digits); it was altered or cut short.", "\(spelled)")
        }
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
