/// One row of a result, copied out of libpq's result in text format.
public struct PostgresRow: Sendable {
    let fields: [String?]

    /// The column as text; a NULL reads as the empty string.
    public func text(_ column: Int) -> String { fields[column] ?? "" }

    public func optionalText(_ column: Int) -> String? { fields[column] }

    /// The column as an integer; a NULL or non-number reads as 0.
    public func int(_ column: Int) -> Int64 { fields[column].flatMap { Int64($0) } ?? 0 }

    public func optionalInt(_ column: Int) -> Int64? { fields[column].flatMap { Int64($0) } }

    /// A `boolean` column (`t`/`f`).
    public func bool(_ column: Int) -> Bool { fields[column] == "t" }
}

/// What a statement returned: its rows and how many rows it changed.
public struct PostgresResult: Sendable {
    public let rows: [PostgresRow]
    /// `PQcmdTuples`: rows inserted, updated or deleted (0 for others).
    public let affected: Int
}
