import Testing
@testable import AlertdAPI

/// The host name a `Host` header names, read as bytes when ASCII: the same
/// name the Character reading gives.
@Suite struct APIOriginPolicyTests {
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
