import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdAPI

/// The answers to `POST /v1/alerts` are written by hand when accepted,
/// `GET /v1/health`'s always, and long listings in parts; they must be the bytes
/// ``APIRepresentation/encoder`` writes, which clients decode.
@Suite struct SubmissionAnswerEncodingTests {
    private func bytes(_ response: HTTPResponse) -> Data? {
        if case .bytes(let data) = response.body { return data }
        return nil
    }

    @Test func anAcceptedAnswerIsTheEncodersBytes() throws {
        let id = AlertID.generate()
        let items: [APIRepresentation.SubmissionItem] = [
            .init(id: id, state: .open, deduplicated: false),
            .init(id: id, state: .open, deduplicated: true),
            .init(index: 7, id: id, state: .confirmed, deduplicated: false),
            .init(index: 0),
        ]
        for item in items {
            let response = APIRepresentation.json(item, status: 202)
            #expect(response.status == 202)
            #expect(bytes(response) == (try APIRepresentation.encoder.encode(item)))
            #expect(response.headers.first { $0.name == "Content-Type" }?.value == "application/json")
        }
    }

    @Test func aBatchAnswerIsTheEncodersBytesWithOrWithoutErrors() throws {
        let accepted = (0..<3).map { APIRepresentation.SubmissionItem(index: $0, id: AlertID.generate(), state: .open, deduplicated: $0 == 1) }
        let rejected = APIRepresentation.SubmissionItem(
            index: 3, error: .init(code: "invalid_alert", message: "Item \"3\" has no title.\n", details: nil))
        let batches = [
            APIRepresentation.BatchResult(accepted: 3, rejected: 0, results: accepted),
            APIRepresentation.BatchResult(accepted: 3, rejected: 1, results: accepted + [rejected]),
            APIRepresentation.BatchResult(accepted: 0, rejected: 1, results: [rejected]),
        ]
        for batch in batches {
            let response = APIRepresentation.json(batch, status: 202)
            #expect(bytes(response) == (try APIRepresentation.encoder.encode(batch)))
        }
    }

    /// Long listings are encoded a few hundred elements at a time, with
    /// yields between; the bytes are still the encoder's for the whole array.
    @Test(arguments: [0, 1, APIRepresentation.elementsAtOnce, APIRepresentation.elementsAtOnce + 1, 3 * APIRepresentation.elementsAtOnce + 7])
    func aListingEncodedInPartsIsTheEncodersBytes(_ count: Int) async throws {
        let items = (0..<count).map { APIRepresentation.SubmissionItem(index: $0, id: AlertID.generate(), state: .open, deduplicated: $0 % 2 == 0) }
        let response = await APIRepresentation.jsonArray(items)
        #expect(response.status == 200)
        #expect(bytes(response) == (try APIRepresentation.encoder.encode(items)))
    }

    /// Alertmanager's groups likewise, the yields counted across groups of
    /// any size: a few groups of thousands were encoded without one.
    @Test(arguments: [[], [0], [3], [APIRepresentation.elementsAtOnce + 5, 0, 2], [700, 300, 1]])
    func groupsEncodedInPartsAreTheEncodersBytes(_ sizes: [Int]) async throws {
        let groups = sizes.enumerated().map { g, size in
            AlertmanagerRepresentation.AlertGroup(
                labels: g == 1 ? [:] : ["alertname": "Disk\(g)", "rack": "r/\(g)"], receiver: .init(name: "hook\(g)"),
                alerts: (0..<size).map { n in
                    AlertmanagerRepresentation.Alert(
                        labels: ["alertname": "Disk\(g)", "n": "\(n)"], annotations: ["summary": "é \"\(n)\""],
                        startsAt: Date(timeIntervalSince1970: 1_700_000_000), endsAt: Date(timeIntervalSince1970: 1_700_000_300),
                        updatedAt: Date(timeIntervalSince1970: 1_700_000_001), fingerprint: "f\(n)", receivers: [.init(name: "hook\(g)")],
                        status: .init(state: .active, silencedBy: []), generatorURL: n % 2 == 0 ? nil : "http://prom/graph")
                })
        }
        let response = await AlertmanagerRepresentation.jsonGroups(groups)
        #expect(response.status == 200)
        #expect(bytes(response) == (try APIRepresentation.encoder.encode(groups)))
    }

    @Test func aHealthAnswerIsTheEncodersBytes() throws {
        let answers = [
            HealthAPI.Health(status: "ok", store: "ok", dispatcher: "running", openAlerts: 3, pendingDeliveries: 0, deadDeliveries: 12),
            HealthAPI.Health(status: "unavailable", store: "unavailable", dispatcher: "stopped",
                             reason: "The store could not be read: \"/var/lib/alertd/alertd.db\" is locked.\nRestart alertd."),
            HealthAPI.Health(status: "degraded", store: "unwritable", dispatcher: "running",
                             reason: "Disk full: écrire à /srv \u{1}\t done", openAlerts: 0, pendingDeliveries: 7, deadDeliveries: 0),
        ]
        for health in answers {
            #expect(health.jsonObject.jsonData == (try APIRepresentation.encoder.encode(health)))
        }
    }
}
