import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdDelivery

/// The `pagerduty` presenter against a stand-in for the Events API v2
/// (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/).
@Suite struct PagerDutyPresenterTests {
    static let routingKey = "R0123456789abcdef0123456789abcde"

    static func contract(_ request: HTTPRequest) -> [String] {
        // "Events API payloads are limited to 512 KB" (the Events API v2 overview).
        (request.body.count > 512 * 1_024 ? ["an event of \(request.body.count) bytes, past 512 KB"] : [])
            + ServiceFixtures.jsonContract(request, path: "/v2/enqueue") { json in
            let body = J(json)
            var problems: [String] = []
            if body["routing_key"].string?.count != 32 { problems.append("routing_key must be 32 characters") }
            if !["trigger", "acknowledge", "resolve"].contains(body["event_action"].string ?? "") { problems.append("event_action") }
            if (body["dedup_key"].string?.count ?? 0) > 255 { problems.append("dedup_key longer than 255") }
            // https://developer.pagerduty.com/docs/events-api-v2/resolve-events/: the key names the alert, nothing else is needed.
            if body["event_action"].string != "trigger" {
                if (body["dedup_key"].string ?? "").isEmpty { problems.append("dedup_key is required to \(body["event_action"].string ?? "")") }
                return problems
            }
            let payload = body["payload"]
            let summary = payload["summary"].string ?? ""
            if summary.isEmpty || summary.count > 1_024 { problems.append("summary length") }
            // "'payload.source' is missing or blank".
            if !(payload["source"].string ?? "").contains(where: { !$0.isWhitespace }) { problems.append("source is missing or blank") }
            if !["critical", "error", "warning", "info"].contains(payload["severity"].string ?? "") { problems.append("severity") }
            for link in body["links"].array.map(J.init) where link["href"].string == nil { problems.append("link without href") }
            return problems
        }
    }

    static let accepted = ServiceFixtures.json(202, #"{"status": "success", "message": "Event processed", "dedup_key": "x"}"#)

    func presenter(_ receiver: ServiceReceiver, source: String? = nil) throws -> any AlertPresenter {
        var settings: [String: Any] = ["routing_key": Self.routingKey, "api_url": receiver.base]
        if let source { settings["source"] = source }
        return try ServiceFixtures.presenter(PagerDutyPresenterConfiguration.self, settings)
    }

    @Test func triggersWithTheAlertIDAsDedupKeyAndTheSeverityMapped() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let p = try presenter(receiver)
        for severity in Severity.allCases {
            let alert = try ServiceFixtures.alert(severity: severity)
            #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .delivered)
            let body = J(try #require(receiver.received.last).json)
            #expect(body["payload"]["severity"].string == severity.rawValue)
            #expect(body["dedup_key"].string == alert.id.rawValue)
        }
        #expect(receiver.received.allSatisfy { $0.problems.isEmpty })
        let body = J(try #require(receiver.received.first).json)
        #expect(body["event_action"].string == "trigger")
        #expect(body["payload"]["summary"].string == "Disk <full> & db1")
        #expect(body["payload"]["source"].string == "db1", "the host label")
        #expect(body["payload"]["custom_details"]["labels"]["env"].string == "prod")
        #expect(body["payload"]["custom_details"]["message"].string == "/var is at 98% <b>now</b> & rising")
        #expect(body["links"].array.map { J($0)["href"].string } == [ServiceFixtures.confirmLink, ServiceFixtures.cancelLink])
    }

    /// With `limits.max_message_length` raised, a long message made an
    /// event past PagerDuty's 512 KB; the message is cut to fit.
    @Test func aLongMessageIsCutToKeepTheEventWithinPagerDutysLimit() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let p = try presenter(receiver)
        for filler in ["€", "\""] {
            let alert = try ServiceFixtures.alert(message: String(repeating: filler, count: 200_000))
            #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .delivered)
            let got = try #require(receiver.received.last)
            #expect(got.problems.isEmpty, "\(got.problems)")
            #expect(J(got.json)["payload"]["custom_details"]["message"].string?.hasSuffix(TextLimit.bodyMarker) == true)
        }
    }

    /// An empty `host` label (a group by host gives alerts without one
    /// that) is no source: PagerDuty would refuse the event for good.
    @Test func aBlankHostLabelIsNoSource() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let p = try presenter(receiver)
        for host in ["", "  "] {
            #expect(await p.present(try ServiceFixtures.alert(labels: ["host": host]), delivery: ServiceFixtures.delivery) == .delivered)
            let got = try #require(receiver.received.last)
            #expect(got.problems.isEmpty, "\(got.problems)")
            #expect(J(got.json)["payload"]["source"].string == "alertd")
        }
    }

    /// With `limits.max_labels` raised, long labels beside a long message
    /// made an event past 512 KB; labels past their share are left out, and
    /// counted.
    @Test func manyLongLabelsAreCutToKeepTheEventWithinPagerDutysLimit() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let p = try presenter(receiver)
        let labels = Dictionary(uniqueKeysWithValues: (0..<64).map { (String(format: "l%02d", $0), String(repeating: "😀", count: 1_024)) })
        let alert = try ServiceFixtures.alert(message: String(repeating: "€", count: 200_000), labels: labels)
        #expect(await p.present(alert, delivery: ServiceFixtures.delivery) == .delivered)
        let got = try #require(receiver.received.last)
        #expect(got.problems.isEmpty, "\(got.problems)")
        let details = J(got.json)["payload"]["custom_details"]
        let kept = details["labels"].object.count
        #expect(kept > 40 && kept < 64, "\(kept)")
        #expect(details["labels_omitted"].int == 64 - kept)
        #expect(details["labels"]["l00"].string != nil && details["labels"]["l63"].string == nil, "name order")
    }

    /// A routing key is an integration key, 32 characters: another passed
    /// the check and every event was refused with a 400. Given inline, it
    /// is refused as the configuration is read; in a file, when the file is
    /// read, by the check and the start. The key is never echoed.
    @Test func aRoutingKeyThatIsNot32CharactersIsRefused() throws {
        #expect(ServiceFixtures.read(PagerDutyPresenterConfiguration.self, ["routing_key": "short"]).1
                == ["presenters.p.routing_key: must be 32 characters long, got 5"])
        #expect(ServiceFixtures.read(PagerDutyPresenterConfiguration.self, ["routing_key": Self.routingKey]).1.isEmpty)
        #expect(ServiceFixtures.read(PagerDutyPresenterConfiguration.self, ["routing_key": String(repeating: "Ä", count: 32)]).1
                == ["presenters.p.routing_key: must be 32 characters long, got 64"])
        let dir = TemporaryDirectory()
        let file = dir.path + "/routing-key"
        try writeSecretFile("short\n", to: file)
        let key = try #require(try ServiceFixtures.configuration(PagerDutyPresenterConfiguration.self, ["routing_key_file": file]).routingKey)
        let context = PresenterContext(httpClient: HTTPClient(), stateDirectory: dir.path)
        #expect(throws: PresenterSetupError("routing_key_file \(file) must hold 32 characters, got 5")) { try key.value(in: context) }
        try writeSecretFile(Self.routingKey + "\n", to: file)
        #expect(try key.value(in: context) == Self.routingKey)
    }

    @Test func answersAreJudged() async throws {
        let receiver = try ServiceReceiver(success: Self.accepted, contract: Self.contract)
        let target = "pagerduty (\(receiver.base))"
        let outcomes = try await ServiceFixtures.outcomes(try presenter(receiver, source: "alertd-prod"), receiver, [
            ServiceFixtures.json(400, #"{"status": "invalid event", "message": "Event object is invalid", "errors": ["'payload.source' is missing or blank"]}"#),
            ServiceFixtures.json(429, #"{"status": "throttle exceeded", "message": "Requests for this service are arriving too quickly."}"#),
            .text(status: 503, ""),
        ])
        #expect(outcomes == [
            .permanentFailure(reason: "HTTP 400 from \(target): 'payload.source' is missing or blank"),
            .retryableFailure(reason: "HTTP 429 from \(target): Requests for this service are arriving too quickly."),
            .retryableFailure(reason: "HTTP 503 from \(target)"),
        ])
        #expect(J(receiver.received.first?.json)["payload"]["source"].string == "alertd-prod")
    }
}
