/// A parameter of a query, sent in PostgreSQL's text format (the server
/// converts it to the column's type).
public enum PostgresValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case null

    public static func optional(_ value: String?) -> PostgresValue { value.map(PostgresValue.text) ?? .null }
    public static func optional(_ value: Int64?) -> PostgresValue { value.map(PostgresValue.integer) ?? .null }

    /// A `text[]` parameter, as an array literal (`{"a","b"}`); cast it in
    /// the SQL (`$1::text[]`).
    public static func textArray(_ values: [String]) -> PostgresValue {
        let quoted = values.map { v in
            "\"" + v.replacingScalars(["\\": "\\\\", "\"": "\\\""]) + "\""
        }
        return .text("{" + quoted.joined(separator: ",") + "}")
    }

    /// The text libpq sends, nil for SQL NULL.
    var wire: String? {
        switch self {
        case .text(let s): s
        case .integer(let i): String(i)
        case .null: nil
        }
    }
}
