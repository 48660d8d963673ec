import Testing
@testable import AlertdHTTP

/// Field names compare ignoring ASCII case only, as RFC 9110 asks.
@Suite struct HTTPHeadersTests {
    @Test func namesCompareIgnoringASCIICaseOnly() {
        let same: [(String, String)] = [
            ("Content-Type", "content-type"), ("content-type", "CONTENT-TYPE"), ("X", "x"), ("", ""),
            ("webhook-id", "Webhook-ID"), ("a-b_c.1", "A-B_C.1"), ("ünïcode", "ünïcode"),
        ]
        let different: [(String, String)] = [
            ("Content-Type", "Content-Typ"), ("Content-Type", "Content-Tape"),
            // Bit 5 tells these apart too, but they are not letters.
            ("@", "`"), ("[", "{"), ("]", "}"), ("^", "~"), ("-", "\r"),
            // Only ASCII letters fold: these differ as bytes.
            ("Ü", "ü"), ("K", "\u{212A}"),
        ]
        for (a, b) in same {
            #expect(HTTPHeaders.sameName(a, b), "\(a) = \(b)")
            #expect(HTTPHeaders.sameName(b, a), "\(b) = \(a)")
        }
        for (a, b) in different {
            #expect(!HTTPHeaders.sameName(a, b), "\(a) ≠ \(b)")
            #expect(!HTTPHeaders.sameName(b, a), "\(b) ≠ \(a)")
        }
    }

    @Test func lookupsFindAnyCase() {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "X-One": "1"]
        headers.add("x-one", "2")
        #expect(headers["content-TYPE"] == "application/json")
        #expect(headers.values(for: "X-ONE") == ["1", "2"])
        headers.set("X-one", "3")
        #expect(headers.values(for: "x-one") == ["3"])
        headers.remove("CONTENT-type")
        #expect(!headers.contains("Content-Type"))
    }
}
