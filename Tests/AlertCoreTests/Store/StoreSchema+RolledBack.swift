@testable import AlertdSQLiteStore

extension StoreSchema {
    /// What later migrations dropped, as the earlier ones made it: the
    /// counter triggers of migration 3 (dropped by 13) and the
    /// `deliveries_next` index of migration 1 (dropped by 14). A test that
    /// rolls a store back to before them puts these back, as an older
    /// alertd would have left them.
    static var droppedByLaterMigrations: String {
        let triggers = ["alerts_count_insert", "deliveries_count_insert", "deliveries_count_update"]
        let created = migrations[2].components(separatedBy: "CREATE TRIGGER ").dropFirst()
            .filter { piece in triggers.contains { piece.hasPrefix($0 + " ") } }
            .map { "CREATE TRIGGER " + $0.components(separatedBy: "END;")[0] + "END;" }
        let index = migrations[0].components(separatedBy: "\n").filter { $0.hasPrefix("CREATE INDEX deliveries_next ") }
        return (created + index).joined(separator: "\n")
    }
}
