import Foundation
import Testing
@testable import AlertModel

/// What the API's JSON reader keeps and refuses.
@Suite struct StrictJSONTests {
    func string(_ bytes: [UInt8]) throws -> String {
        let object = try #require(try StrictJSON.parse(Data(bytes)) as? [String: Any])
        return try #require(object["k"] as? String)
    }

    /// A raw byte-order mark inside a string is text like any other, at the
    /// start of a string, after an escape or escaped itself.
    @Test func aRawByteOrderMarkInAStringIsKeptWhereverItIs() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try string(Array(#"{"k":""#.utf8) + bom + Array(#"key"}"#.utf8)) == "\u{FEFF}key")
        #expect(try string(Array(#"{"k":"a"#.utf8) + bom + Array(#"b"}"#.utf8)) == "a\u{FEFF}b")
        #expect(try string(Array(#"{"k":"\n"#.utf8) + bom + Array(#""}"#.utf8)) == "\n\u{FEFF}")
        #expect(try string(Array(#"{"k":"\ufeffkey"}"#.utf8)) == "\u{FEFF}key")
        // Outside strings nothing is rewritten: keys and values around it read as before.
        #expect(try string(Array(#"{"k": "x", "n": 1}"#.utf8)) == "x")
    }

    @Test func trailingCommasAreStillRefusedWithTheirPosition() {
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.parse(Data("{\"a\": 1,\n}".utf8)) }
        do {
            _ = try StrictJSON.parse(Data("[1,\n 2,\n]".utf8))
        } catch {
            #expect(error.description == "A trailing comma is not allowed in JSON at line 2, column 3.")
        }
        // A comma inside a string is text.
        #expect((try? StrictJSON.parse(Data(#"{"a": "x,}"}"#.utf8))) != nil)
    }

    func failure(_ text: String) -> String? {
        do {
            _ = try StrictJSON.parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func valuesComeBackAsSwiftValues() throws {
        let object = try #require(try StrictJSON.parse(#"""
            {"s": "x\"\\\/\b\f\n\r\t\u00e9", "t": true, "f": false, "n": null, "i": -42, "z": -0,
             "d": 1.5e3, "big": 12345678901234567890, "a": [1, "2", {}], "o": {"k": []}}
            """#) as? [String: Any])
        #expect(object["s"] as? String == "x\"\\/\u{8}\u{C}\n\r\té")
        #expect(object["t"] as? Bool == true && object["f"] as? Bool == false)
        #expect(StrictJSON.isNull(object["n"]!))
        #expect(object["i"] as? Int == -42 && object["z"] as? Int == 0)
        #expect(object["d"] as? Double == 1500)
        #expect(object["big"] as? Double == 12345678901234567890)
        #expect((object["a"] as? [Any])?.count == 3)
        #expect(((object["o"] as? [String: Any])?["k"] as? [Any])?.isEmpty == true)
        // Booleans are not numbers, and numbers are not booleans.
        #expect(StrictJSON.number(true) == nil && StrictJSON.wholeNumber(1.5) == nil && StrictJSON.wholeNumber(2e3) == 2000)
        #expect(!StrictJSON.isBoolean(1) && StrictJSON.isBoolean(false))
        // Top-level scalars, and a UTF-8 byte-order mark before the text.
        #expect(try StrictJSON.parse(" 7 ") as? Int == 7)
        #expect(try StrictJSON.parse(Data([0xEF, 0xBB, 0xBF] + Array(#""x""#.utf8))) as? String == "x")
    }

    @Test func unicodeEscapesAndSurrogatePairs() throws {
        #expect(try StrictJSON.parse(#""\ud83d\ude00 \u00E9\u0000""#) as? String == "😀 é\u{0}")
        #expect(try StrictJSON.parse("\"😀 é\"") as? String == "😀 é")
        #expect(failure(#"{"k": "\ud800"}"#)
                == #"The escape \ud800 is a high surrogate without the low surrogate escape after it at line 1, column 8."#)
        #expect(failure(#"["\ud800\u0041"]"#)
                == #"The escape \ud800 is a high surrogate without the low surrogate escape after it at line 1, column 3."#)
        #expect(failure(#"["x\ude00"]"#) == #"The escape \ude00 is a low surrogate without a high surrogate before it at line 1, column 4."#)
        #expect(failure(#"["\u12"]"#) == #"A \u escape needs four hex digits at line 1, column 3."#)
        #expect(failure(#"["\x"]"#) == "Invalid escape sequence at line 1, column 3.")
        #expect(failure("[\"a\tb\"]") == "Unescaped control character in a string at line 1, column 4.")
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.parse(Data(Array(#"{"k": "caf"#.utf8) + [0xC3, 0x28, 0x22, 0x7D])) }
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.parse(Data([0x22, 0xED, 0xA0, 0x80, 0x22])) }
    }

    @Test func duplicateKeysWrongTokensAndNumbersAreRefusedWithTheirPosition() {
        #expect(failure(#"{"a": 1, "a": 2}"#) == #"Duplicate key "a" at line 1, column 10."#)
        #expect(failure(#"{"a": {"b": 1}, "c": {"b": 2}}"#) == nil)
        #expect(failure(#"{"a": 01}"#) == "Number with leading zero at line 1, column 7.")
        #expect(failure(#"{"a": 1.}"#) == "Invalid number at line 1, column 7.")
        #expect(failure(#"{"a": -}"#) == "Invalid number at line 1, column 7.")
        #expect(failure(#"{"a": 1e400}"#) == "Number 1e400 is out of range at line 1, column 7.")
        // A long one is quoted in part: the whole went back in the error.
        #expect(failure("{\"a\": 1" + String(repeating: "0", count: 3_000_000) + "}")
                == "Number 1\(String(repeating: "0", count: 23))… (3000001 characters) is out of range at line 1, column 7.")
        #expect(failure(#"{"a": tru}"#) == "Invalid value at line 1, column 7.")
        #expect(failure(#"{"a" 1}"#) == "Expected ':' after a key at line 1, column 6.")
        #expect(failure(#"{a: 1}"#) == "Expected a key in double quotes at line 1, column 2.")
        #expect(failure(#"{"a": 1 "b": 2}"#) == "Expected ',' or '}' after a value in an object at line 1, column 9.")
        #expect(failure("[1 2]") == "Expected ',' or ']' after a value in an array at line 1, column 4.")
        #expect(failure(#"{"a": 1} x"#) == "Unexpected text after the JSON value at line 1, column 10.")
        #expect(failure(#"{"a": 1"#) == "Unexpected end of file during JSON parse at line 1, column 8.")
        #expect(failure("") == "Unexpected end of file during JSON parse at line 1, column 1.")
        #expect(failure("NaN") == "Invalid value at line 1, column 1.")
    }

    @Test func nestingIsLimited() {
        let deepest = String(repeating: "[", count: StrictJSON.maximumDepth) + String(repeating: "]", count: StrictJSON.maximumDepth)
        #expect(failure(deepest) == nil)
        let tooDeep = "[" + deepest + "]"
        #expect(failure(tooDeep) == "Too many nested arrays or objects (at most 512) at line 1, column 513.")
        let objects = String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600)
        #expect(failure(objects)?.hasPrefix("Too many nested arrays or objects") == true)
    }

    /// The writer's output reads back as the same value, keys sorted,
    /// strings escaped as `JSONObject.quoted` escapes them.
    @Test func theWriterRoundTripsThroughTheReader() throws {
        let value: [String: Any] = [
            "b": [1, 2.5, true, JSONNull(), "x/y\u{7F}\u{1}\u{85}é😀"], "a": ["z": Int64(1)], "e": [String: Any](), "l": [Any](),
        ]
        let text = JSONObject.text(of: value)
        #expect(text == #"{"a":{"z":1},"b":[1,2.5,true,null,"x/y\u007f\u0001\u0085é😀"],"e":{},"l":[]}"#)
        let back = try #require(try StrictJSON.parse(text) as? [String: Any])
        #expect(JSONObject.text(of: back) == text)
        #expect(JSONObject.text(of: ["k": ["v"]], pretty: true) == "{\n  \"k\" : [\n    \"v\"\n  ]\n}")
    }

    /// Thousands of bad keys cost time in proportion to their number, and the
    /// answer lists the first hundred with a count of the rest.
    @Test func problemsBeyondTheListLimitAreCounted() throws {
        var object: [String: Any] = ["title": "t"]
        for i in 0..<5_000 { object["unknown\(i)"] = "v" }
        let start = ContinuousClock.now
        let result = AlertSpec.Builder(jsonObject: object).build()
        #expect(ContinuousClock.now - start < .seconds(1))
        guard case .failure(let errors) = result else { Issue.record("accepted"); return }
        #expect(errors.errors.count == AlertSpecErrors.listLimit)
        #expect(errors.count == 5_000)
        #expect(errors.omitted == 5_000 - AlertSpecErrors.listLimit)
        #expect(errors.description.hasSuffix("(4900 more problems not listed)"))
    }

    /// Past the label-count limit, the labels are not checked one by one.
    @Test func tooManyLabelsIsOneProblem() throws {
        let labels = Dictionary(uniqueKeysWithValues: (0..<10_000).map { ("1bad\($0)", "\u{1B}") })
        guard case .failure(let errors) = AlertSpec.Builder(jsonObject: ["title": "t", "labels": labels]).build() else {
            Issue.record("accepted")
            return
        }
        #expect(errors.codes == [.tooManyLabels])
    }
}
