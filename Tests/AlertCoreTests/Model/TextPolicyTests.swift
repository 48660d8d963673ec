import Foundation
import Testing
@testable import AlertModel

/// The one policy for text people send and other people read.
@Suite struct TextPolicyTests {
    @Test func trimmingMatchesFoundation() {
        let ends = ["", " ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{2003}", "\u{3000}", "\u{2028}", "x", "é"]
        for head in ends {
            for tail in ends {
                for body in ["", "a", "a b", "\u{1F4A5}", " \t "] {
                    let s = head + body + tail
                    #expect(s.trimmingSpaces() == s.trimmingCharacters(in: .whitespaces), "\(Array(s.unicodeScalars))")
                    #expect(s.trimmingWhitespace() == s.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(s.unicodeScalars))")
                    #expect(s.dropFirst(0).trimmingSpaces() == s.trimmingSpaces())
                }
            }
        }
    }

    @Test func plainTextInAnyScriptPasses() {
        for text in ["Disk full on db1", "Überlauf auf Host café", "ディスクがいっぱい", "نفاد المساحة", "तैनाती पूरी",
                     // Emoji sequences need the zero-width joiner and variation selectors...
                     "👨‍👩‍👧 family", "❤️ ok",
                     // ...subdivision flags need tag characters, and Persian needs the non-joiner.
                     "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} Scotland", "می‌خواهم",
                     "🏴\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}🏴\u{E0075}\u{E0073}\u{E0074}\u{E0078}\u{E007F} two flags",
                     // Mongolian's free variation selectors are variation selectors too.
                     "ᠮᠣ᠋ᠩᠭᠣᠯ",
                     // A selector after what it varies, a joiner between two: keycaps, ZWJ emoji, ideographic variants.
                     "1\u{FE0F}\u{20E3} first", "❤\u{FE0F}\u{200D}🔥", "☺\u{FE0E}", "葛\u{E0100}城"] {
            #expect(TextPolicy.firstRefused(in: text, .line) == nil, "\(text)")
        }
    }

    @Test func controlBidiAndInvisibleCharactersAreRefusedByCodePoint() {
        let refused: [(String, String, String)] = [
            ("\u{1B}[31mred", "U+001B", "a control character"),
            ("\u{1B}]0;title\u{07}", "U+001B", "a control character"),
            ("done\rDONE", "U+000D", "a carriage return"),
            ("\u{9B}31m", "U+009B", "a control character"),
            ("abc\u{202E}fed", "U+202E", "a bidirectional formatting character"),
            ("\u{2066}isolated\u{2069}", "U+2066", "a bidirectional formatting character"),
            ("mark\u{200F}", "U+200F", "a bidirectional formatting character"),
            ("ad\u{200B}min", "U+200B", "an invisible character"),
            ("\u{FEFF}key", "U+FEFF", "an invisible character"),
            ("word\u{2060}joiner", "U+2060", "an invisible character"),
            ("hidden\u{E0041}\u{E0042}", "U+E0041", "an invisible tag character"),
            // Behind a 🏴, only a subdivision code and its cancel tag are a flag: anything else is hidden text.
            ("ok 🏴\u{E0049}\u{E0067}\u{E006E}\u{E006F}\u{E0072}\u{E0065}\u{E007F}", "U+E0049", "an invisible tag character"),
            ("ok 🏴" + String(repeating: "\u{E0078}", count: 150), "U+E0078", "an invisible tag character"),
            ("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074} no cancel", "U+E0067", "an invisible tag character"),
            ("🏴\u{E0067}\u{E0062}\u{E007F}", "U+E0067", "an invisible tag character"),
            ("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}\u{E0078}", "U+E0078", "an invisible tag character"),
            ("soft\u{AD}hyphen", "U+00AD", "an invisible character"),
            ("a\u{34F}b", "U+034F", "an invisible character"),
            ("\u{3164}", "U+3164", "an invisible character"),
            ("x\u{1D173}y", "U+1D173", "an invisible character"),
            // Joiners and variation selectors only where they join or vary: runs of them hid a byte each.
            ("Disk ok 😀\u{FE0F}\u{FE01}\u{FE02}", "U+FE01", "an invisible variation selector outside a sequence"),
            ("\u{FE0F}start", "U+FE0F", "an invisible variation selector outside a sequence"),
            ("ok \u{FE00}", "U+FE00", "an invisible variation selector outside a sequence"),
            ("a\u{E0100}b", "U+E0100", "an invisible variation selector outside a sequence"),
            ("Disk\u{200D}\u{200C}\u{200D} ok", "U+200D", "an invisible joiner outside a sequence"),
            ("\u{200D}start", "U+200D", "an invisible joiner outside a sequence"),
            ("end\u{200C}", "U+200C", "an invisible joiner outside a sequence"),
            ("a\u{200D}\u{FE0F}", "U+200D", "an invisible joiner outside a sequence"),
            ("two\u{2028}lines", "U+2028", "a line break"),
            ("tab\there", "U+0009", "a line break or tab"),
        ]
        for (text, code, reason) in refused {
            let refusal = TextPolicy.firstRefused(in: text, .line)
            #expect(refusal?.description == "\(code) (\(reason))", "\(text.debugDescription)")
        }
    }

    /// A title that shows nothing is no title, whatever fills it.
    @Test func aTitleOfBlanksAndInvisibleCharactersIsMissing() throws {
        for blank in ["\u{A0}\u{2003}", "\u{3000}", "\u{2800}", "\u{AD}", "\u{115F}\u{FFA0}", "\u{200B}"] {
            guard case .failure(let errors) = AlertSpec.Builder().title(blank).build() else { Issue.record("accepted"); continue }
            #expect(errors.errors.map(\.code) == [.missingTitle], "\(blank.unicodeScalars.map(\.value))")
        }
        #expect(TextPolicy.showsNothing(" \u{2800} \u{3164}"))
        #expect(!TextPolicy.showsNothing("\u{2800}x"))
        #expect(!TextPolicy.showsNothing("🏴"))
    }

    @Test func multilineTextKeepsNewlinesTabsAndCRLFOnly() {
        #expect(TextPolicy.firstRefused(in: "line one\nline two\r\n\tindented", .multiline) == nil)
        #expect(TextPolicy.firstRefused(in: "progress 10%\rprogress 100%", .multiline)?.scalar == "\r")
        #expect(TextPolicy.firstRefused(in: "trailing\r", .multiline)?.scalar == "\r")
        #expect(TextPolicy.firstRefused(in: "ok\n\u{202E}evil", .multiline)?.scalar == "\u{202E}")
    }

    /// Every text field of an alert goes through the same policy and names itself.
    @Test func everyAlertTextFieldIsChecked() throws {
        let bad = "a\u{202E}b"
        let result = AlertSpec.Builder(jsonObject: [
            "title": bad, "message": bad, "labels": ["env": bad], "dedup_key": bad,
            "confirm": ["label": bad, "url": "https://ops.example/\u{200B}x"],
        ]).build()
        guard case .failure(let errors) = result else { Issue.record("accepted"); return }
        let fields = errors.errors.filter { $0.code == .controlCharacters }.map(\.field)
        #expect(Set(fields) == ["title", "message", "labels.env", "dedup_key", "confirm.label"])
        #expect(errors.errors.contains { $0.field == "confirm.url" && $0.code == .invalidHandlerURL })
        let title = try #require(errors.errors.first { $0.field == "title" })
        #expect(title.message.contains("U+202E (a bidirectional formatting character)"))
    }

    @Test func decisionCommentsAndActorsFollowThePolicy() {
        #expect(AlertDecision.textProblems(comment: "fine,\nshipping", actor: "uid:1000").isEmpty)
        let problems = AlertDecision.textProblems(comment: "\u{1B}]8;;https://evil\u{07}click", actor: "tcp:\u{202E}1")
        #expect(problems.map(\.field) == ["comment", "actor"])
        #expect(problems.allSatisfy { $0.code == .controlCharacters })
    }
}
