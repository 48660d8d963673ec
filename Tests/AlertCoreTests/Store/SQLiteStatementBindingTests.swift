import Testing
@testable import AlertdSQLite

/// A statement binds its texts from bytes of its own that SQLite reads in
/// place until the next bind (``SQLiteStatement``): every run must store
/// exactly its own values, however the sizes of one run and the next differ.
@Suite struct SQLiteStatementBindingTests {
    @Test func eachRunStoresItsOwnTextsWhateverTheirSizes() throws {
        let dir = TemporaryDirectory()
        let conn = try SQLiteConnection(path: dir.path + "/bind.db")
        try conn.withLock { c throws(SQLiteError) in
            try c.execute("CREATE TABLE t (n INTEGER, a TEXT, b TEXT, c TEXT)")
            let insert = try c.statement("INSERT INTO t (n, a, b, c) VALUES (?, ?, ?, ?)")
            // Small (inline) strings, heap strings, empty ones, non-ASCII, one
            // past the statement's own room, then small ones again.
            let runs: [(String, String, String)] = [
                ("a", "bb", ""),
                (String(repeating: "x", count: 40), "é🙂 ünïcode", String(repeating: "y", count: 3_000)),
                (String(repeating: "z", count: 40_000), "short", ""),
                ("", "", ""),
                ("after", String(repeating: "w", count: 500), "end"),
            ]
            for (i, (a, b, text)) in runs.enumerated() {
                try insert.run([.integer(Int64(i)), .text(a), .text(b), .text(text)])
            }
            // Fewer values than parameters: the rest bind NULL, not the last run's texts.
            try insert.run([.integer(99), .text("only")])
            let rows = try c.statement("SELECT n, a, b, c FROM t ORDER BY n").query { row in
                (row.int(0), row.text(1), row.text(2), row.optionalText(3))
            }
            #expect(rows.count == runs.count + 1)
            for (i, (a, b, text)) in runs.enumerated() {
                #expect(rows[i].0 == Int64(i))
                #expect(rows[i].1 == a)
                #expect(rows[i].2 == b)
                #expect(rows[i].3 == text)
            }
            #expect(rows[runs.count].1 == "only")
            #expect(rows[runs.count].2 == "")
            #expect(rows[runs.count].3 == nil)
            // A query's texts stay bound while its rows are read.
            let found = try c.statement("SELECT n FROM t WHERE a = ? OR b = ? ORDER BY n").query([.text("after"), .text("é🙂 ünïcode")]) { $0.int(0) }
            #expect(found == [1, 4])
        }
    }
}
