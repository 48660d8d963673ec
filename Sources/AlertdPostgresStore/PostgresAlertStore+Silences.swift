import FoundationEssentials
import AlertModel
import AlertdPostgres
import AlertdStore

extension PostgresAlertStore {
    public func saveSilence(_ silence: Silence, replacing id: SilenceID?, now: Date) async throws(StoreError) -> SilenceSaveOutcome {
        try await writer.write { session throws(PostgresError) in
            var tx = PostgresStoreTransaction(session: session)
            return try StoreRules.saveSilence(silence, replacing: id, now: now, in: &tx)
        }
    }

    public func silence(id: SilenceID) async throws(StoreError) -> Silence? {
        try await pool.run("Reading silence \(id)") { conn throws(PostgresError) in
            try conn.query("SELECT \(StoreCoding.silenceColumns) FROM silences WHERE id = $1", [.text(id.rawValue)])
                .rows.first.flatMap { StoreCoding.silence(StoreCoding.SilenceRow($0)) }
        }
    }

    public func silences() async throws(StoreError) -> [Silence] {
        try await pool.run("Listing silences") { conn throws(PostgresError) in
            try conn.query("SELECT \(StoreCoding.silenceColumns) FROM silences ORDER BY updated_at DESC, id DESC")
                .rows.compactMap { StoreCoding.silence(StoreCoding.SilenceRow($0)) }
        }
    }

    public func expireSilence(id: SilenceID, now: Date) async throws(StoreError) -> Silence? {
        try await writer.write { session throws(PostgresError) in
            var tx = PostgresStoreTransaction(session: session)
            return try StoreRules.expireSilence(id, now: now, in: &tx)
        }
    }

    public func releaseInhibited(now: Date) async throws(StoreError) {
        try await writer.write { session throws(PostgresError) in
            try PostgresStoreTransaction(session: session).releaseInhibited(at: now)
        }
    }
}
