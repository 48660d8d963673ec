import FoundationEssentials
import AlertModel

extension StoreCoding {
    /// The columns ``group(_:)`` reads, in order.
    package static let groupColumns = "id, route, labels, settings, created_at, next_due_at, notified_at"

    /// The raw columns of one group row.
    package struct GroupRow: Sendable {
        package var id: String, route: String, labels: String, settings: String
        package var created: Int64, nextDue: Int64, notified: Int64?

        package init(id: String, route: String, labels: String, settings: String, created: Int64, nextDue: Int64, notified: Int64?) {
            self.id = id
            self.route = route
            self.labels = labels
            self.settings = settings
            self.created = created
            self.nextDue = nextDue
            self.notified = notified
        }
    }

    private struct SettingsWire: Codable {
        var presenters: [String]
        var wait_ms: Int64
        var interval_ms: Int64
        var repeat_ms: Int64
    }

    package static func encodeLabels(_ labels: [AlertLabel]) -> String {
        String(decoding: (try? encoder.encode(labels)) ?? Data("[]".utf8), as: UTF8.self)
    }

    package static func encodeSettings(_ s: AlertGroupSettings) -> String {
        let wire = SettingsWire(presenters: s.presenters, wait_ms: Int64(s.wait.milliseconds), interval_ms: Int64(s.interval.milliseconds),
                                repeat_ms: Int64(s.repeatInterval.milliseconds))
        return String(decoding: (try? encoder.encode(wire)) ?? Data("{}".utf8), as: UTF8.self)
    }

    package static func group(_ row: GroupRow) throws(StoreError) -> AlertGroup {
        guard let id = AlertGroupID(row.id),
              let labels = try? JSONDecoder().decode([AlertLabel].self, from: Data(row.labels.utf8)),
              let s = try? JSONDecoder().decode(SettingsWire.self, from: Data(row.settings.utf8))
        else { throw StoreError(code: .corrupt, message: "Group \(row.id) in the store cannot be read.") }
        return AlertGroup(
            id: id, route: row.route, labels: labels,
            settings: AlertGroupSettings(presenters: s.presenters, wait: .milliseconds(s.wait_ms), interval: .milliseconds(s.interval_ms),
                                         repeatInterval: .milliseconds(s.repeat_ms)),
            createdAt: date(row.created), nextDueAt: date(row.nextDue), notifiedAt: row.notified.map(date))
    }

    package static func encodeAlertIDs(_ ids: Set<AlertID>) -> String { jsonList(ids.map(\.rawValue).sorted()) }

    /// Ids this store wrote (``encodeAlertIDs(_:)``), taken as they are.
    package static func decodeAlertIDs(_ text: String) -> Set<AlertID> { Set(decodeList(text).map(AlertID.init(trusted:))) }
}
