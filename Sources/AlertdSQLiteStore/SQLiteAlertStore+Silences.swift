import FoundationEssentials
import AlertModel
import AlertdSQLite
import AlertdStore

extension SQLiteAlertStore {
    public func saveSilence(_ silence: Silence, replacing id: SilenceID?, now: Date) async throws(StoreError) -> SilenceSaveOutcome {
        try await writer.write { conn throws(SQLiteError) in
            // Before the silence is written: a claim made at intake after this
            // sees the silence and makes none; one made before is given back.
            self.silenceSaves.add(1, ordering: .releasing)
            return try SQLiteStoreTransaction.run(in: conn, silences: self.silenceIndex) { tx throws(SQLiteError) in
                try StoreRules.saveSilence(silence, replacing: id, now: now, in: &tx)
            }
        }
    }

    public func silence(id: SilenceID) async throws(StoreError) -> Silence? {
        try await read("Reading silence \(id)") { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in try tx.silence(id) }
        }
    }

    public func silences() async throws(StoreError) -> [Silence] {
        try await read("Listing silences") { conn throws(SQLiteError) in
            try conn.statement("SELECT \(StoreCoding.silenceColumns) FROM silences ORDER BY updated_at DESC, id DESC")
                .query { StoreCoding.SilenceRow($0) }.compactMap(StoreCoding.silence)
        }
    }

    public func expireSilence(id: SilenceID, now: Date) async throws(StoreError) -> Silence? {
        try await writer.write { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn, silences: self.silenceIndex) { tx throws(SQLiteError) in try StoreRules.expireSilence(id, now: now, in: &tx) }
        }
    }

    public func releaseInhibited(now: Date) async throws(StoreError) {
        try await writer.write { conn throws(SQLiteError) in
            try SQLiteStoreTransaction.run(in: conn) { tx throws(SQLiteError) in try tx.releaseInhibited(at: now) }
        }
    }
}
