import Testing
@testable import AlertdAPI
@testable import AlertdHTTP

/// The host name a `Host` header names, read as bytes when ASCII: the same
/// name the Character reading gives.
@Suite struct APIOriginPolicyTests {
    /// At the public URL's host, a session's change must come from the
    /// public URL's scheme too: http:// beside https:// is another origin.
    @Test func aSessionsChangeComesFromThePublicURLsSchemeToo() throws {
        let policy = APIOriginPolicy(publicURL: "https://alerts.example")
        func post(_ origin: String) -> HTTPRequest {
            HTTPRequest(method: "POST", target: "/ui/session", headers: ["Origin": origin, "Host": "alerts.example"])
        }
        #expect(throws: Never.self) { try policy.checkSession(post("https://alerts.example")) }
        #expect(throws: APIError.self) { try policy.checkSession(post("http://alerts.example")) }
        // Without a public URL, the Host alone names it, whatever the scheme a proxy ends.
        #expect(throws: Never.self) { try APIOriginPolicy().checkSession(post("http://alerts.example")) }
    }

    @Test func hostNamesAsBytesMatchTheCharacterReading() {
        let headers = [
            "localhost", "LOCALHOST:8080", " 127.0.0.1:9093 ", "\t[::1]:80", "[::1]", "::1", "[fe80::1%25eth0]:80",
            "alerts.example.com.", "Alerts.Example.COM.:443", "[]", "[", "]", "[x", "x]", "[[x]]", ":", ":80", "a:b:c",
            "host..", "...", "", " ", "[a].", "a.:1", "[A]:", "x:y]", "[::ffff:127.0.0.1]:8080", "@`{}",
        ]
        for header in headers {
            #expect(APIOriginPolicy.hostName(header) == APIOriginPolicy.unicodeHostName(header), "Host \(header)")
        }
        #expect(APIOriginPolicy.hostName("Alerts.Example.COM.:443") == "alerts.example.com")
        #expect(APIOriginPolicy.hostName("[::1]:80") == "::1")
        #expect(APIOriginPolicy.hostName("ÄLERTS.example") == "älerts.example")
    }
}
