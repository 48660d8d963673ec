import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl

/// One text policy for everything people send and other people read, and
/// every character read as it was sent, whatever the sender's encoder.
@Suite(.serialized) struct UserTextDaemonTests {
    /// Read with alertd's own reader: `JSONSerialization` would drop a leading U+FEFF from a field name.
    func error(_ r: HTTPClientResponse) -> [String: Any] {
        ((try? StrictJSON.parse(r.body)) as? [String: Any])?["error"] as? [String: Any] ?? [:]
    }

    func details(_ r: HTTPClientResponse) -> [(field: String, code: String, message: String)] {
        (error(r)["details"] as? [[String: Any]] ?? []).map {
            ($0["field"] as? String ?? "", $0["code"] as? String ?? "", $0["message"] as? String ?? "")
        }
    }

    /// A comment went out verbatim in events and handler payloads, escapes and all.
    @Test func decisionCommentsWithTerminalEscapesAreRefused() async throws {
        let d = try TestDaemon()
        try await d.start()
        let id = try await d.send(["title": "Deploy?"])
        for comment in ["\u{1B}]0;owned\u{07}ok", "\u{1B}[2J\u{1B}[Hcleared", "approved\rREJECTED", "fine \u{202E}deifirev", "ad\u{200B}min"] {
            for tcp in [false, true] {
                let r = try await d.request("POST", "/v1/alerts/\(id)/confirm", json: ["comment": comment], tcp: tcp)
                #expect(r.status == 422, "\(comment.debugDescription)")
                #expect(error(r)["code"] as? String == "invalid_decision")
                #expect(details(r).map(\.field) == ["comment"])
                #expect(details(r).first?.code == "control_characters")
            }
        }
        #expect(try await d.show(id)["state"] as? String == "open")
        // Newlines and tabs are a comment's own.
        let ok = try await d.request("POST", "/v1/alerts/\(id)/confirm", json: ["comment": "checked:\n\t- disk\r\n\t- load"])
        #expect(ok.status == 200)
    }

    @Test func bidiAndInvisibleCharactersAreRefusedInEveryAlertField() async throws {
        let d = try TestDaemon()
        try await d.start()
        let cases: [([String: Any], String, String)] = [
            (["title": "Invoice \u{202E}fdp.exe"], "title", "U+202E"),
            (["title": "\u{2066}isolated\u{2069}"], "title", "U+2066"),
            (["title": "ad\u{200B}min login"], "title", "U+200B"),
            (["title": "t", "message": "ok\n\u{1B}[31mred"], "message", "U+001B"),
            (["title": "t", "labels": ["user": "ro\u{200D}\u{200B}ot"]], "labels.user", "U+200B"),
            // A dedup key keeps invisible characters (see below) but not direction overrides.
            (["title": "t", "dedup_key": "disk\u{202E}full"], "dedup_key", "U+202E"),
            (["title": "t", "confirm": ["label": "Go\u{200F}", "url": "https://ops.example/go"]], "confirm.label", "U+200F"),
        ]
        for (alert, field, codePoint) in cases {
            let r = try await d.request("POST", "/v1/alerts", json: alert)
            #expect(r.status == 422, "\(alert)")
            let problem = details(r).first { $0.field == field }
            #expect(problem?.code == "control_characters", "\(alert)")
            #expect(problem?.message.contains(codePoint) == true, "\(problem?.message ?? "")")
        }
        // Messages keep their newlines and tabs; emoji keep their joiners.
        let fine = try await d.request("POST", "/v1/alerts", json: ["title": "👩‍💻 deploy", "message": "line 1\r\n\tline 2\nline 3"])
        #expect(fine.status == 202)
    }

    /// A raw byte-order mark inside a JSON string used to vanish, so a key
    /// sent raw and the same key sent escaped were different keys. Sent as
    /// raw bytes, it is now read as it is and judged as the escape is.
    @Test func aRawByteOrderMarkIsReadAsSent() async throws {
        let d = try TestDaemon()
        try await d.start()
        let bom = "\u{FEFF}"  // encodes as the raw bytes EF BB BF
        func post(_ json: String) async throws -> HTTPClientResponse {
            try await d.request("POST", "/v1/alerts", body: Data(json.utf8), headers: ["Content-Type": "application/json"], tcp: true)
        }
        // A dedup key keeps every character as sent: raw and escaped, it is one key.
        let raw = try await post(#"{"title":"t","dedup_key":"\#(bom)disk-full"}"#)
        let escaped = try await post(#"{"title":"t","dedup_key":"\ufeffdisk-full"}"#)
        #expect(raw.status == 202 && escaped.status == 202)
        let first = try StrictJSON.parse(raw.body) as? [String: Any]
        let second = try StrictJSON.parse(escaped.body) as? [String: Any]
        #expect(first?["deduplicated"] as? Bool == false && second?["deduplicated"] as? Bool == true)
        #expect(first?["id"] as? String == second?["id"] as? String)
        // Read back with alertd's own reader: JSONSerialization would drop the leading mark again.
        let shown = try await d.request("GET", "/v1/alerts/\(try #require(first?["id"] as? String))")
        let stored = try StrictJSON.parse(shown.body) as? [String: Any]
        #expect((stored?["spec"] as? [String: Any])?["dedup_key"] as? String == bom + "disk-full")
        // Text people read refuses it, whichever way it was sent.
        for (json, field) in [
            (#"{"title":"t","labels":{"env":"\#(bom)prod"}}"#, "labels.env"),
            (#"{"title":"t","labels":{"env":"\ufeffprod"}}"#, "labels.env"),
            (#"{"title":"\u00e9\#(bom)t"}"#, "title"),
        ] {
            let r = try await post(json)
            #expect(r.status == 422, "\(json.debugDescription)")
            let problem = details(r).first { $0.field == field }
            #expect(problem?.message.contains("U+FEFF") == true, "\(json.debugDescription): \(details(r))")
        }
        // In a key too: a raw mark before `title` made it `title`; now it is another key.
        let key = try await post(#"{"\#(bom)title":"t"}"#)
        #expect(key.status == 422)
        #expect(details(key).contains { $0.field == "\u{FEFF}title" && $0.code == "unknown_field" })
        #expect(details(key).contains { $0.code == "missing_title" })
    }
}
