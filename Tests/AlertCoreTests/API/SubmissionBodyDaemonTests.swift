import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl

/// `POST /v1/alerts` reads its body straight into the builder, item by item
/// (`AlertSpec.Builder.reading`): whatever it read before, a body that is
/// not JSON stores nothing, and a key given twice is refused wherever it is.
@Suite(.serialized) struct SubmissionBodyDaemonTests {
    private func post(_ d: TestDaemon, _ body: String) async throws -> (status: Int, json: [String: Any]) {
        let r = try await d.request("POST", "/v1/alerts", body: Data(body.utf8), headers: ["Content-Type": "application/json"])
        return (r.status, (try? JSONSerialization.jsonObject(with: r.body) as? [String: Any]) ?? [:])
    }

    private func error(_ answer: (status: Int, json: [String: Any])) -> (code: String?, message: String?) {
        let error = answer.json["error"] as? [String: Any]
        return (error?["code"] as? String, error?["message"] as? String)
    }

    private func stored(_ d: TestDaemon) async throws -> Int {
        let r = try await d.request("GET", "/v1/alerts")
        return ((try JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["alerts"] as? [Any])?.count ?? -1
    }

    /// API.md's invalid-alert example is what the daemon answers: its
    /// messages had drifted from the ones alertd writes.
    @Test func theGuidesInvalidAlertExampleIsTheDaemonsAnswer() async throws {
        let docs = try DocSnippets("docs/API.md")
        let request = try docs.snippet("invalid-alert-request")
        let start = try #require(request.range(of: "-d '")?.upperBound)
        let end = try #require(request[start...].firstIndex(of: "'"))
        // The shell passes the page's `\n` and `\u001b` on as JSON escapes.
        let d = try TestDaemon()
        try await d.start()
        let answer = try await post(d, String(request[start..<end]))
        #expect(answer.status == 422)
        let documented = try #require(try JSONSerialization.jsonObject(with: Data(docs.snippet("invalid-alert-answer").utf8)) as? [String: Any])
        let said = try #require(answer.json["error"] as? [String: Any])
        let shown = try #require(documented["error"] as? [String: Any])
        #expect(NSDictionary(dictionary: said).isEqual(to: shown), "the daemon answers \(said)")
    }

    @Test func aKeyGivenTwiceAnywhereInAnAlertIsMalformed() async throws {
        let d = try TestDaemon()
        try await d.start()
        let manyLabels = (0..<20).map { "\"l\($0)\": \"v\"" }.joined(separator: ", ")
        let bodies = [
            (#"{"title": "a", "title": "b"}"#, #"Duplicate key "title" at line 1, column 16."#),
            (#"{"title": "a", "labels": {"env": "x", "env": "y"}}"#, #"Duplicate key "env" at line 1, column 39."#),
            (#"{"title": "a", "severty": 1, "severty": 2}"#, #"Duplicate key "severty" at line 1, column 30."#),
            (#"{"title": "a", "template": "t", "template": "u"}"#, #"Duplicate key "template" at line 1, column 33."#),
            // Past a few labels the names are kept in a set: the repeat is still seen.
            (#"{"title": "a", "labels": {\#(manyLabels), "l3": "w"}}"#, #"Duplicate key "l3""#),
            // In an array, the item's own keys.
            (#"[{"title": "a"}, {"title": "b", "message": "m", "message": "n"}]"#, #"Duplicate key "message""#),
        ]
        for (body, message) in bodies {
            let answer = try await post(d, body)
            #expect(answer.status == 400, "\(body)")
            #expect(error(answer).code == "malformed_json", "\(body)")
            #expect(error(answer).message?.contains(message) == true, "\(body): \(error(answer).message ?? "")")
        }
        #expect(try await stored(d) == 0)
    }

    @Test func aBatchThatStopsBeingJSONStoresNothing() async throws {
        let d = try TestDaemon()
        try await d.start()
        for body in [#"[{"title": "a"}, {"title": "b"}, {"title": ]"#, #"[{"title": "a"}, {"title": "b"}] x"#,
                     #"[{"title": "a"}, {"title": "b"},]"#, #"{"title": "a"} {"title": "b"}"#] {
            let answer = try await post(d, body)
            #expect(answer.status == 400, "\(body)")
            #expect(error(answer).code == "malformed_json", "\(body)")
        }
        #expect(try await stored(d) == 0)
    }

    @Test func itemsThatAreNotAlertObjectsAreRefusedOneByOne() async throws {
        let d = try TestDaemon()
        try await d.start()
        let answer = try await post(d, #"[{"title": "kept", "labels": {"env": "prod"}}, 5, "x", null, [], {"title": 5}]"#)
        #expect(answer.status == 202)
        #expect(answer.json["accepted"] as? Int == 1 && answer.json["rejected"] as? Int == 5)
        let results = answer.json["results"] as? [[String: Any]] ?? []
        #expect(results.count == 6)
        for i in 1...4 {
            let e = results.first { $0["index"] as? Int == i }?["error"] as? [String: Any]
            #expect(e?["code"] as? String == "invalid_body" && e?["message"] as? String == "Item \(i) is not an alert object.")
        }
        let typed = results.first { $0["index"] as? Int == 5 }?["error"] as? [String: Any]
        #expect(typed?["code"] as? String == "invalid_alert")
        #expect(try await stored(d) == 1)

        for (body, code) in [(#""an alert""#, "invalid_body"), ("5", "invalid_body"), ("[]", "empty_batch"), ("null", "invalid_body")] {
            let refused = try await post(d, body)
            #expect(refused.status == 400, "\(body)")
            #expect(error(refused).code == code, "\(body)")
        }
    }
}
