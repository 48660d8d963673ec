import Foundation

/// How values are written to and read from the store's columns.
enum StoreCoding {
    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    /// Delivery ids are derived from the alert id, so they are as unique and
    /// as sortable as it is, and cost no extra randomness.
    static func deliveryID(alert: AlertID, index: Int) -> String { "\(alert.rawValue).\(index)" }

    static func alert(id: AlertID, spec: String, state: String, created: Int64, updated: Int64) throws(StoreError) -> Alert {
        guard let decoded = try? JSONDecoder().decode(AlertSpec.self, from: Data(spec.utf8)),
              let state = AlertState(rawValue: state) else {
            throw StoreError(code: .corrupt, message: "Alert \(id) in the store cannot be read back; its stored spec is damaged.")
        }
        return Alert(id: id, spec: decoded, state: state, createdAt: date(created), updatedAt: date(updated))
    }

    static func json(_ fields: [String: String?]) -> String {
        let present = fields.compactMapValues { $0 }
        guard let data = try? encoder.encode(present) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
