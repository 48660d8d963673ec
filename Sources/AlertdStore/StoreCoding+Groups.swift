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
        /// Left out when empty, as groups stored before it have it.
        var closings_untold: [String]?
    }

    /// One label object, `{"name": …, "value": …}`, as ``encodeLabels(_:)``
    /// and a group snapshot write it; nil for anything else.
    package static func readLabel(_ r: inout StrictJSON.Reader) throws(StrictJSON.Failure) -> AlertLabel? {
        var name: String?
        var value: String?
        try r.uniqueMembers { key, r throws(StrictJSON.Failure) in
            switch key {
            case "name": name = try r.stringValue()
            case "value": value = try r.stringValue()
            default: _ = try r.value()
            }
        }
        guard let name, let value else { return nil }
        return AlertLabel(name: name, value: value)
    }

    /// What ``encodeLabels(_:)`` wrote; nil for anything else.
    static func decodeLabels(_ text: String) -> [AlertLabel]? {
        let labels = try? StrictJSON.read(text) { r throws(StrictJSON.Failure) -> [AlertLabel]? in
            var labels: [AlertLabel] = []
            var whole = true
            try r.elements { r throws(StrictJSON.Failure) in
                if let label = try readLabel(&r) { labels.append(label) } else { whole = false }
            }
            return whole ? labels : nil
        }
        return labels ?? nil
    }

    /// What ``encodeSettings(_:)`` wrote; nil for anything else.
    private static func decodeSettings(_ text: String) -> SettingsWire? {
        let wire = try? StrictJSON.read(text) { r throws(StrictJSON.Failure) -> SettingsWire? in
            var presenters: [String]?
            var untold: [String]? = []
            var millis: [String: Int64] = [:]
            func names(_ r: inout StrictJSON.Reader) throws(StrictJSON.Failure) -> [String]? {
                var list: [String] = []
                var strings = true
                try r.elements { r throws(StrictJSON.Failure) in
                    if let p = try r.stringValue() { list.append(p) } else { strings = false }
                }
                return strings ? list : nil
            }
            try r.uniqueMembers { key, r throws(StrictJSON.Failure) in
                switch key {
                case "presenters": presenters = try names(&r)
                case "closings_untold": untold = try names(&r)
                default:
                    if let n = StrictJSON.wholeNumber(try r.value()) { millis[key] = Int64(n) }
                }
            }
            guard let presenters, let untold, let wait = millis["wait_ms"], let interval = millis["interval_ms"], let repeats = millis["repeat_ms"]
            else { return nil }
            return SettingsWire(presenters: presenters, wait_ms: wait, interval_ms: interval, repeat_ms: repeats,
                                closings_untold: untold.isEmpty ? nil : untold)
        }
        return wire ?? nil
    }

    package static func encodeLabels(_ labels: [AlertLabel]) -> String {
        String(decoding: (try? encoder.encode(labels)) ?? Data("[]".utf8), as: UTF8.self)
    }

    package static func encodeSettings(_ s: AlertGroupSettings) -> String {
        let wire = SettingsWire(presenters: s.presenters, wait_ms: Int64(s.wait.milliseconds), interval_ms: Int64(s.interval.milliseconds),
                                repeat_ms: Int64(s.repeatInterval.milliseconds),
                                closings_untold: s.closingsUntold.isEmpty ? nil : s.closingsUntold.sorted())
        return String(decoding: (try? encoder.encode(wire)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Read with the strict reader, not `JSONDecoder`: every alert joining
    /// a group reads its row, and the decoder's generic machinery was most
    /// of the writer's time for a batch into a grouped route.
    package static func group(_ row: GroupRow) throws(StoreError) -> AlertGroup {
        guard let id = AlertGroupID(row.id), let labels = decodeLabels(row.labels), let s = decodeSettings(row.settings)
        else { throw StoreError(code: .corrupt, message: "Group \(row.id) in the store cannot be read.") }
        return AlertGroup(
            id: id, route: row.route, labels: labels,
            settings: AlertGroupSettings(presenters: s.presenters, wait: .milliseconds(s.wait_ms), interval: .milliseconds(s.interval_ms),
                                         repeatInterval: .milliseconds(s.repeat_ms), closingsUntold: Set(s.closings_untold ?? [])),
            createdAt: date(row.created), nextDueAt: date(row.nextDue), notifiedAt: row.notified.map(date))
    }

    package static func encodeAlertIDs(_ ids: Set<AlertID>) -> String { jsonList(ids.map(\.rawValue).sorted()) }

    /// Ids this store wrote (``encodeAlertIDs(_:)``), taken as they are.
    package static func decodeAlertIDs(_ text: String) -> Set<AlertID> { Set(decodeList(text).map(AlertID.init(trusted:))) }
}
