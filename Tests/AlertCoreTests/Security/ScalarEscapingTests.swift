import Foundation
import Testing
@testable import AlertModel
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdPostgres

/// Escaping goes by scalars: a special character that a combining mark
/// follows, or a Prepend letter precedes, is one Character with it, and
/// escaping by Characters let it through as it was.
@Suite struct ScalarEscapingTests {
    /// U+0D4E prepends itself to what follows; U+0301 combines with what precedes.
    static func glued(_ special: String) -> String { "a\u{0D4E}\(special)b \(special)\u{0301}c" }

    /// Whether `text`'s bytes hold `part`'s: a search by Characters cannot see a glued one.
    static func has(_ text: String, _ part: String) -> Bool { Data(text.utf8).range(of: Data(part.utf8)) != nil }

    @Test func markupEscapesAGluedSpecialCharacter() {
        for special in ["<", ">", "&", "\""] {
            let html = MarkupEscaping.html(Self.glued(special)), prepended = "\u{0D4E}" + special + "b", combined = special + "\u{0301}"
            #expect(!Self.has(html, prepended) && !Self.has(html, combined), "\(html)")
        }
        let slack = MarkupEscaping.slack("\u{0D4E}<!channel>"), expected = "\u{0D4E}&lt;!channel&gt;"
        #expect(slack == expected)
    }

    @Test func metricLabelValuesEscapeAGluedQuote() {
        let text = MetricsRegistry.labelText(["presenter": "x\u{0D4E}\"} 1\nfake_metric{a=\"b"])
        let raw = "\u{0D4E}\"", newline = "\n", escapedQuote = "\u{0D4E}\\\""
        #expect(!Self.has(text, raw), "\(text)")
        #expect(!Self.has(text, newline), "\(text)")
        #expect(Self.has(text, escapedQuote), "\(text)")
        let help = MetricsRegistry.escapeHelp("a\u{0D4E}\\\n"), escaped = #"a\#u{0D4E}\\\n"#
        #expect(help == escaped)
    }

    @Test func aPostgresArrayElementCannotCloseItsQuote() {
        guard case .text(let literal) = PostgresValue.textArray(["a\u{0D4E}\",\"b", "c\u{0D4E}\\"]) else {
            Issue.record("not text")
            return
        }
        let expected = #"{"a\#u{0D4E}\",\"b","c\#u{0D4E}\\"}"#
        #expect(literal == expected)
    }
}
