@testable import AlertdSQLiteStore

extension StoreSchema {
    /// The counter triggers migration 3 made and migration 13 dropped, as
    /// migration 3 wrote them: a test that rolls a store back to before 13
    /// puts them back, as an older alertd would have left them.
    static var countTriggersBefore13: String {
        let names = ["alerts_count_insert", "deliveries_count_insert", "deliveries_count_update"]
        return migrations[2].components(separatedBy: "CREATE TRIGGER ").dropFirst()
            .filter { piece in names.contains { piece.hasPrefix($0 + " ") } }
            .map { "CREATE TRIGGER " + $0.components(separatedBy: "END;")[0] + "END;" }
            .joined(separator: "\n")
    }
}
