import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdAPI

/// The media type a request's body is read by: its `Content-Type` without
/// parameters, trimmed and lowercased, read as bytes when ASCII.
@Suite struct APIRequestBodyTests {
    static func request(contentType: String?) -> HTTPRequest {
        HTTPRequest(method: "POST", target: "/v1/alerts", headers: contentType.map { ["Content-Type": $0] } ?? [:])
    }

    @Test func mediaTypeIsTheFirstPartTrimmedAndLowercased() {
        let cases: [(String?, String?)] = [
            (nil, nil),
            ("application/json", "application/json"),
            ("Application/JSON; charset=utf-8", "application/json"),
            (" \tapplication/json \t; charset=utf-8", "application/json"),
            // What `split` gave before: empty parts are passed over.
            (";application/json", "application/json"),
            (";;", nil),
            ("", nil),
            ("  ", ""),
            ("text/plain;application/json", "text/plain"),
            ("APPLICATION/JSON-SEQ", "application/json-seq"),
            // Not ASCII: Unicode's rules, as before.
            ("\u{00A0}Application/JSÓN\u{3000}; x", "application/jsón"),
            ("ÉVENT/STREAM", "évent/stream"),
        ]
        for (header, expected) in cases {
            #expect(APIRequestBody.mediaType(Self.request(contentType: header)) == expected, "Content-Type \(String(describing: header))")
        }
    }

    @Test func bytesAgreeWithCharactersOnEveryASCIIByte() {
        // Each ASCII byte around a media type: the byte reading must give
        // what the Character reading gives.
        for byte in UInt8(0)..<0x80 {
            let c = String(decoding: [byte], as: UTF8.self)
            for header in ["\(c)application/Json", "application/Json\(c)", "a\(c)b;\(c)c", "\(c);\(c)x"] {
                let reference = header.split(separator: ";").first?.trimmingSpaces().lowercased()
                #expect(APIRequestBody.mediaType(Self.request(contentType: header)) == reference, "byte \(byte)")
            }
        }
    }
}

/// A batch past `max_batch` is refused with its count, its surplus only
/// counted: 350,000 `{}` in a megabyte, each read and found wanting, cost
/// 0.2 s of CPU a request before the 413.
@Suite struct OversizedBatchTests {
    @Test(arguments: ["/v1/alerts", "/api/v2/alerts"])
    func aBatchPastTheLimitIsRefusedWithItsCount(_ path: String) async throws {
        let router = APIFixture.router()
        let body = "[" + Array(repeating: "{}", count: 5_000).joined(separator: ",") + "]"
        let response = await router.handle(APIFixture.request("POST", path, json: body))
        #expect(response.status == 413)
        let text = String(decoding: APIFixture.body(response), as: UTF8.self)
        #expect(text.contains("The array holds 5000 alerts; the limit is 1000."), "\(text)")
        // At the limit, each item is read and judged.
        let atLimit = "[" + Array(repeating: "{}", count: 1_000).joined(separator: ",") + "]"
        let judged = await router.handle(APIFixture.request("POST", path, json: atLimit))
        #expect(judged.status == (path == "/v1/alerts" ? 422 : 400), "\(String(decoding: APIFixture.body(judged), as: UTF8.self).prefix(200))")
    }
}
