import Foundation
import Testing
@testable import AlertModel

/// The hand-written JSON writer: what it escapes, and that keys come out
/// sorted whatever order they went in.
@Suite struct JSONObjectTests {
    @Test func stringsAreEscapedAsJSONRequiresAndControlsAreSpelledOut() {
        let cases: [(String, String)] = [
            ("plain text", #""plain text""#),
            (#"say "hi" \ bye"#, #""say \"hi\" \\ bye""#),
            ("a\nb\rc\td", #""a\nb\rc\td""#),
            ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
            ("del\u{7F}", #""del\u007f""#),
            // C1 controls are escaped; the next code points (U+00A0 on) are text.
            ("\u{80}\u{85}\u{9F}\u{A0}\u{BF}", "\"\\u0080\\u0085\\u009f\u{A0}\u{BF}\""),
            ("é😀\u{FEFF}\u{202E}", "\"é😀\u{FEFF}\u{202E}\""),
            // Line and paragraph separators, where line readers split a JSON-lines record; their neighbours are text.
            ("a\u{2028}b\u{2029}c\u{2027}\u{202A}", "\"a\\u2028b\\u2029c\u{2027}\u{202A}\""),
            ("", #""""#),
            ("\"", #""\"""#),
        ]
        for (input, expected) in cases {
            #expect(JSONObject.quoted(input) == expected)
        }
    }

    /// Long text is passed over eight bytes at a time: an escape at any
    /// offset, at either end or next to another, is still found.
    @Test func escapesAreFoundAtEveryOffsetOfLongText() {
        let pieces = ["a", "Z", " ", "~", "\"", "\\", "\n", "\u{1}", "\u{7F}", "\u{85}", "\u{A0}", "é", "😀", "\u{2028}", "\u{2029}", "\u{2026}"]
        var rng = SplitMix(seed: 42)
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 40] {
            for _ in 0..<200 {
                let text = (0..<length).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
                #expect(JSONObject.quoted(text) == Self.reference(text), "\(Array(text.unicodeScalars))")
            }
        }
        let long = String(repeating: "x", count: 64)
        #expect(JSONObject.quoted(long + "\"" + long) == "\"" + long + "\\\"" + long + "\"")
    }

    /// The escapes scalar by scalar, as the writer defines them.
    static func reference(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test func integersAreWrittenAsStringDoes() {
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 1_733_097_600_123, .max, .min, .max - 1, .min + 1]
        var rng = SplitMix(seed: 7)
        for _ in 0..<200 { values.append(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64)) }
        for value in values {
            var o = JSONObject()
            o.int("n", value)
            #expect(o.json == #"{"n":\#(value)}"#)
        }
    }

    @Test func keysAreSortedWhateverTheOrderTheyWereAddedIn() throws {
        var inner = JSONObject(absent: .null)
        inner.string("z", "last")
        inner.int("a", 1)
        inner.string("m", nil)
        var o = JSONObject()
        o.object("nested", inner)
        o.strings("labels", ["b": "2", "a": "1"])
        o.raw("list", "[1,2]")
        o.string("absent", nil)
        o.string("\u{7}key", "v")
        let expected = #"{"\u0007key":"v","labels":{"a":"1","b":"2"},"list":[1,2],"nested":{"a":1,"m":null,"z":"last"}}"#
        #expect(o.json == expected)
        #expect(o.jsonData == Data(expected.utf8))
        // What it writes is JSON that reads back to the same values.
        let back = try #require(try JSONSerialization.jsonObject(with: o.jsonData) as? [String: Any])
        #expect((back["nested"] as? [String: Any])?["z"] as? String == "last")
        #expect(JSONObject().json == "{}")
    }

    /// An object written out of order is sorted by reading its fields back
    /// from its text: commas, braces and brackets inside strings, and spaces
    /// in raw values, must not end a field.
    @Test func fieldsWithDelimitersInsideSurviveSorting() {
        var o = JSONObject()
        o.raw("z", #" [ {"a": "},]\"{"}, [1, 2] ] "#)
        o.string("y", #"a,"b"}]{[\"#)
        o.raw("x", #"{"k":"v,}"}"#)
        o.object("w") { w in
            w.string("q", "},{")
            w.raw("p", "[]")
        }
        o.int("a", 1)
        #expect(o.json == #"{"a":1,"w":{"p":[],"q":"},{"},"x":{"k":"v,}"},"y":"a,\"b\"}]{[\\","z": [ {"a": "},]\"{"}, [1, 2] ] }"#)
    }

    /// A map of strings comes out in key order at every size: those sorted
    /// on the stack (up to 16) and those sorted as a copy.
    @Test func mapsOfEverySizeComeOutInKeyOrder() {
        var rng = SplitMix(seed: 5)
        let names = ["a", "B", "é", "z", "a b", "k\\", "Ω", "", "ab", "abc", "\u{1}", "zz", "m", "n", "o", "p", "q", "r", "s", "t"]
        for size in 0...names.count {
            for _ in 0..<5 {
                var map: [String: String] = [:]
                var pool = names
                for _ in 0..<size { map[pool.remove(at: Int(rng.next() % UInt64(pool.count)))] = "v\(rng.next() % 10)" }
                var o = JSONObject()
                o.strings(map)
                var reference = JSONObject()
                for key in map.keys.sorted() { reference.string(key, map[key]) }
                #expect(o.json == reference.json, "\(size) keys")
            }
        }
    }

    /// Whether keys came in order is told from their bytes when both are
    /// plain ASCII, else from their Strings: either way the text is the
    /// same as for the keys given in String order.
    @Test func keysOfEveryKindComeOutInStringOrderFromAnyOrder() {
        // The Kelvin sign is "K" to String: bytes alone would put "\u{212A}a" after "Kb".
        let keys = ["ab", "abc", "a", "B", "a\"b", "a\\b", "é", "ü", "z", "Ω", "a b", "tab\t", "\u{212A}a", "Kb", "e\u{301}x", "ex"]
        var sorted = JSONObject()
        for key in keys.sorted() { sorted.string(key, key) }
        var generator = SystemRandomNumberGenerator()
        for round in 0..<50 {
            let order = round == 0 ? Array(keys.sorted().reversed()) : keys.shuffled(using: &generator)
            var o = JSONObject()
            for key in order { o.string(key, key) }
            #expect(o.json == sorted.json, "added in the order \(order)")
        }
    }

    /// Objects written by closures into their parent's buffer come out as
    /// the same objects written whole: keys sorted at every depth, whichever
    /// level was given them out of order, with each level's own rule for nil.
    @Test func nestedObjectsWrittenInPlaceAreSortedAtEveryDepth() {
        var o = JSONObject(capacity: 4)
        o.string("m", "middle")
        o.object("b", absent: .null) { b in
            b.string("y", nil)
            b.object("x") { x in
                x.int("2", 2)
                x.int("1", 1)
                x.string("gone", nil)
            }
            b.object("w", nil as Int?) { $0.int("never", Int64($1)) }
            b.object("v", 5) { $0.int("n", Int64($1)) }
        }
        o.object("z") { _ in }
        o.object("a", nil as Int?) { $0.int("n", Int64($1)) }
        o.strings("labels", ["k2": "v2", "k1": "v1"])
        #expect(o.json == #"{"b":{"v":{"n":5},"w":null,"x":{"1":1,"2":2},"y":null},"labels":{"k1":"v1","k2":"v2"},"m":"middle","z":{}}"#)
    }

    /// Arrays of objects and of strings, written in place: empty, one,
    /// several, each object sorted on its own, the fields after them intact.
    @Test func arraysWrittenInPlaceHoldTheirElementsInOrder() {
        var o = JSONObject(capacity: 2)
        o.objects("none", [Int]()) { $0.int("n", Int64($1)) }
        o.objects("each", [2, 1]) { e, n in
            e.int("z", Int64(n))
            e.list("a", Array(repeating: "x", count: n))
        }
        o.list("names", ["a\"b", "", "é"])
        o.list("empty", [])
        o.string("after", "ok")
        #expect(o.json == #"{"after":"ok","each":[{"a":["x","x"],"z":2},{"a":["x"],"z":1}],"empty":[],"names":["a\"b","","é"],"none":[]}"#)
    }

    /// Random documents, nested and in random key order, against the
    /// generic writer, which sorts each object's keys as it writes it.
    @Test func nestedObjectsMatchTheGenericWriter() {
        var rng = SplitMix(seed: 11)
        func key() -> String { ["a", "b", "é", "Z", "k\\", "long key with spaces", "\u{1}", ""][Int(rng.next() % 8)] }
        func fill(_ o: inout JSONObject, depth: Int) -> [String: Any] {
            var reference: [String: Any] = [:]
            for _ in 0..<Int(rng.next() % 6) {
                let k = key()
                guard reference[k] == nil else { continue }
                switch rng.next() % 5 {
                case 0:
                    let v = "v\(rng.next() % 100)\"\n"
                    o.string(k, v)
                    reference[k] = v
                case 1:
                    let v = Int64(bitPattern: rng.next()) >> 8
                    o.int(k, v)
                    reference[k] = Int(v)
                case 2:
                    let v = (0..<Int(rng.next() % 4)).map { "s\($0)\u{1}\"é" }
                    o.list(k, v)
                    reference[k] = v
                case 3:
                    guard depth < 4 else { continue }
                    var elements: [Any] = []
                    o.objects(k, 0..<Int(rng.next() % 4)) { element, _ in elements.append(fill(&element, depth: depth + 1)) }
                    reference[k] = elements
                default:
                    guard depth < 4 else { continue }
                    var inner: [String: Any] = [:]
                    o.object(k) { inner = fill(&$0, depth: depth + 1) }
                    reference[k] = inner
                }
            }
            return reference
        }
        for _ in 0..<300 {
            var o = JSONObject(capacity: 1)
            let reference = fill(&o, depth: 0)
            #expect(o.json == JSONObject.text(of: reference))
        }
    }
}
