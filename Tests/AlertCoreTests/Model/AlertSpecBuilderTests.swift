import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdLogging
@testable import AlertdCommandLine
@testable import AlertdStore
@testable import AlertdSQLiteStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient
@testable import AlertdServices

/// One way to trigger one error code.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    let code: AlertSpecError.Code
    let builder: AlertSpec.Builder
    var testDescription: String { code.rawValue }
}

@Suite struct AlertSpecBuilderTests {
    static let url = "https://ops.example/hook"

    static let cases: [ErrorCase] = [
        ErrorCase(code: .missingTitle, builder: .init()),
        ErrorCase(code: .missingTitle, builder: .init().title("   ")),
        ErrorCase(code: .titleTooLong, builder: .init().title(String(repeating: "a", count: 201))),
        // One Character of 100,000 combining marks: counted by scalars, far over.
        ErrorCase(code: .titleTooLong, builder: .init().title("a" + String(repeating: "\u{0301}", count: 100_000))),
        ErrorCase(code: .controlCharacters, builder: .init().title("red \u{1B}[31m")),
        ErrorCase(code: .controlCharacters, builder: .init().title("x").message("a\u{7}b")),
        ErrorCase(code: .messageTooLong, builder: .init().title("x").message(String(repeating: "m", count: 8_193))),
        ErrorCase(code: .invalidSeverity, builder: .init().title("x").severity(parsing: "urgent", source: "--severity")),
        ErrorCase(code: .invalidHandlerURL, builder: .init().title("x").confirm("OK", handler: "not a url")),
        ErrorCase(code: .invalidHandlerURL, builder: .init().title("x").confirm("OK", handler: "https://")),
        ErrorCase(code: .invalidHandlerURL, builder: .init().title("x").confirm("OK", handler: "")),
        ErrorCase(code: .handlerURLTooLong,
                  builder: .init().title("x").confirm("OK", handler: url + String(repeating: "a", count: 2_100))),
        ErrorCase(code: .handlerSchemeNotAllowed, builder: .init().title("x").cancel("No", handler: "ftp://x")),
        ErrorCase(code: .invalidHandlerMethod, builder: .init(jsonObject: [
            "title": "x", "confirm": ["label": "OK", "url": url, "method": "DELETE"],
        ])),
        ErrorCase(code: .invalidAction, builder: .init().title("x").confirm(parsing: "just-a-label", source: "--confirm")),
        ErrorCase(code: .emptyActionLabel, builder: .init().title("x").confirm(parsing: "=\(url)")),
        ErrorCase(code: .actionLabelTooLong,
                  builder: .init().title("x").confirm(String(repeating: "L", count: 41), handler: url)),
        ErrorCase(code: .duplicateActionLabel,
                  builder: .init().title("x").confirm("OK", handler: url).cancel("OK", handler: url)),
        ErrorCase(code: .invalidLabel, builder: .init().title("x").label(parsing: "novalue", source: "--label")),
        ErrorCase(code: .invalidLabelName, builder: .init().title("x").label("1host", "a")),
        ErrorCase(code: .invalidLabelName, builder: .init().title("x").label(String(repeating: "n", count: 129), "a")),
        ErrorCase(code: .reservedLabelName, builder: .init().title("x").label("__name", "a")),
        ErrorCase(code: .duplicateLabel, builder: .init().title("x").label("env", "a").label("env", "b")),
        ErrorCase(code: .labelValueTooLong, builder: .init().title("x").label("env", String(repeating: "v", count: 1_025))),
        ErrorCase(code: .tooManyLabels, builder: (0..<65).reduce(AlertSpec.Builder().title("x")) { $0.label("l\($1)", "v") }),
        ErrorCase(code: .emptyDedupKey, builder: .init().title("x").dedupKey("")),
        ErrorCase(code: .dedupKeyTooLong, builder: .init().title("x").dedupKey(String(repeating: "k", count: 256))),
        ErrorCase(code: .invalidExpiry, builder: .init().title("x").expires(parsing: "30x", source: "--expires")),
        ErrorCase(code: .invalidExpiry, builder: .init().title("x").expires(after: .seconds(0))),
        ErrorCase(code: .invalidExpiry, builder: .init().title("x").expires(after: .hours(24 * 31))),
        ErrorCase(code: .invalidType, builder: .init(jsonObject: ["title": 5])),
        ErrorCase(code: .unknownField, builder: .init(jsonObject: ["title": "x", "severty": "info"])),
        ErrorCase(code: .missingTemplateValues,
                  builder: AlertTemplate(name: "disk", title: "Disk full on {host}").fill(.init(), values: [:])),
        ErrorCase(code: .invalidTemplateValue,
                  builder: AlertTemplate(name: "t", title: "x", cancel: AlertAction(label: "Skip", url: "https://ops.example/ok/{host}/skip"))
                      .fill(.init(), values: ["host": ".."])),
        ErrorCase(code: .unknownTemplate, builder: .init().title("x").problem(
            AlertSpecError(field: "template", code: .unknownTemplate, message: "no such template"))),
    ]

    @Test(arguments: cases)
    func reportsCode(_ c: ErrorCase) throws {
        let result = c.builder.build()
        guard case .failure(let errors) = result else {
            Issue.record("expected \(c.code) but the spec built")
            return
        }
        #expect(errors.codes == [c.code])
        for error in errors.errors {
            #expect(!error.message.isEmpty)
            #expect(!error.field.isEmpty)
        }
    }

    @Test func everyCodeIsCovered() {
        let all: Set<AlertSpecError.Code> = [
            .missingTitle, .titleTooLong, .controlCharacters, .messageTooLong, .invalidSeverity, .invalidHandlerURL,
            .handlerURLTooLong, .handlerSchemeNotAllowed, .invalidHandlerMethod, .invalidAction, .emptyActionLabel,
            .actionLabelTooLong, .duplicateActionLabel, .invalidLabel, .invalidLabelName, .reservedLabelName,
            .duplicateLabel, .labelValueTooLong, .tooManyLabels, .emptyDedupKey, .dedupKeyTooLong, .invalidExpiry,
            .invalidType, .unknownField, .unknownTemplate, .missingTemplateValues, .invalidTemplateValue,
        ]
        #expect(Set(Self.cases.map(\.code)) == all)
    }

    @Test func errorsQuoteTheSource() throws {
        let errors = try #require(AlertSpec.Builder().title("x").expires(parsing: "30x", source: "--expires").build().failure)
        #expect(errors.errors[0].message.hasPrefix("`--expires` is not a duration: `30x`."))
        #expect(errors.errors[0].field == "expires_after")
        #expect(errors.errors[0].description.hasSuffix("[invalid_expiry]"))
    }

    /// What a sender sent is quoted back with the characters text may not
    /// hold spelled out: a C1 control or a bidirectional override went
    /// back raw, to act on the screen of whoever read the answer.
    @Test func quotedValuesSpellOutWhatWouldActOnTheScreen() throws {
        let errors = try #require(AlertSpec.Builder().title("x")
            .severity(parsing: "x\u{202E}", source: "severity")
            .expires(parsing: "1\u{9B}2J", source: "expires_after")
            .label(parsing: "n\u{202E}", source: "labels")
            .confirm("Go", handler: "http://\u{9B}2J/x")
            .labels(["bad\u{202E}name": "v"])
            .build().failure)
        let text = errors.errors.map(\.message).joined(separator: "\n")
        #expect(!text.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x9B }, "\(text)")
        #expect(text.contains("x<U+202E>") && text.contains("1<U+009B>2J"), "\(text)")
    }

    @Test func reportsEveryProblemAtOnce() throws {
        let errors = try #require(AlertSpec.Builder()
            .title("")
            .severity(parsing: "loud")
            .label(parsing: "oops")
            .label("9x", "v")
            .confirm(parsing: "=ftp://x")
            .dedupKey("")
            .expires(parsing: "soon")
            .build().failure)
        #expect(errors.codes == [
            .invalidLabel, .missingTitle, .invalidSeverity, .invalidLabelName,
            .emptyActionLabel, .handlerSchemeNotAllowed, .emptyDedupKey, .invalidExpiry,
        ])
        #expect(errors.errors.map(\.field) == [
            "labels", "title", "severity", "labels.9x", "confirm.label", "confirm.url", "dedup_key", "expires_after",
        ])
        #expect(errors.description.split(separator: "\n").count == 8)
    }

    @Test func buildsAValidSpecWithDefaults() throws {
        let spec = try AlertSpec.Builder().title("  Disk full  ").message("").build().get()
        #expect(spec.title == "Disk full")
        #expect(spec.message == nil)
        #expect(spec.severity == .info)
        #expect(spec.labels.isEmpty)
    }

    @Test func roundTripsThroughJSON() throws {
        let spec = try AlertSpec.Builder()
            .title("Disk full on db1")
            .message("/var at 97%\nsee https://grafana.example/d/disk")
            .severity(parsing: "CRITICAL")
            .labels(["host": "db1", "env": "prod"])
            .confirm("Expand", handler: "https://ops.example/expand?vol=var", method: .put)
            .cancel("Ignore", handler: "http://ops.example/ignore")
            .dedupKey("disk-full:db1")
            .expires(parsing: "1h30m")
            .build().get()
        let data = try JSONEncoder().encode(spec)
        let decoded = try JSONDecoder().decode(AlertSpec.self, from: data)
        #expect(decoded == spec)
        #expect(decoded.builder.build() == .success(spec))

        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["expires_after"] as? Int == 5_400)
        #expect(object["dedup_key"] as? String == "disk-full:db1")
        #expect(AlertSpec.Builder(jsonObject: object).build() == .success(spec))
    }

    @Test func decodingRejectsAnInvalidSpec() {
        let json = Data(#"{"title": "x", "confirm": {"label": "OK", "url": "ftp://x"}}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(AlertSpec.self, from: json) }
    }
}

@Suite struct AlertSpecJSONInputTests {
    static func builder(_ json: String) throws -> AlertSpec.Builder {
        try AlertSpec.Builder(json: json)
    }

    @Test func reportsWrongTypesPerField() throws {
        let errors = try #require(try Self.builder("""
            {"title": 5, "message": true, "severity": 3, "labels": {"env": 1, "ok": "x"},
             "confirm": "Restart", "cancel": {"label": 2, "url": "https://a.example"},
             "dedup_key": [], "expires_after": -5}
            """).build().failure)
        let byField = Dictionary(errors.errors.map { ($0.field, $0.code) }, uniquingKeysWith: { a, _ in a })
        #expect(byField == [
            "title": .invalidType, "message": .invalidType, "severity": .invalidType, "labels.env": .invalidType,
            "confirm": .invalidType, "cancel.label": .invalidType, "dedup_key": .invalidType,
            "expires_after": .invalidType,
        ])
        #expect(errors.errors.count == 8)
    }

    @Test func labelsMustBeAnObject() throws {
        let errors = try #require(try Self.builder(#"{"title": "x", "labels": ["a"]}"#).build().failure)
        #expect(errors.errors.map(\.field) == ["labels"])
        #expect(errors.codes == [.invalidType])
    }

    @Test func unknownFieldsAreReportedInOrder() throws {
        let errors = try #require(try Self.builder(#"{"title": "x", "zeta": 1, "alpha": 2, "confirm": {"label": "a", "url": "https://a.example", "verb": "GET"}}"#).build().failure)
        #expect(errors.errors.map(\.field) == ["alpha", "zeta", "confirm.verb"])
        #expect(errors.codes == [.unknownField, .unknownField, .unknownField])
    }

    @Test func expiryAcceptsWholeSecondsAndDurations() throws {
        // 1 is also the value Linux's Foundation confuses with `true`.
        #expect(try Self.builder(#"{"title": "x", "expires_after": 1}"#).build().get().expiresAfter == .seconds(1))
        #expect(try Self.builder(#"{"title": "x", "expires_after": 600}"#).build().get().expiresAfter == .minutes(10))
        #expect(try Self.builder(#"{"title": "x", "expires_after": "2h"}"#).build().get().expiresAfter == .hours(2))
        #expect(try Self.builder(#"{"title": "x", "expires_after": true}"#).build().failure?.codes == [.invalidType])
        #expect(try Self.builder(#"{"title": "x", "expires_after": 1.5}"#).build().failure?.codes == [.invalidType])
        #expect(try Self.builder(#"{"title": "x", "expires_after": "30x"}"#).build().failure?.codes == [.invalidExpiry])
    }

    @Test func nullMeansAbsentAndMethodDefaultsToPost() throws {
        let spec = try Self.builder(#"{"title": "x", "message": null, "confirm": {"label": "Go", "url": "https://a.example/go", "method": "put"}}"#).build().get()
        #expect(spec.message == nil)
        #expect(spec.confirm == AlertAction(label: "Go", url: "https://a.example/go", method: .put))
        #expect(try Self.builder(#"{"title": "x", "cancel": {"label": "No", "url": "https://a.example"}}"#).build().get().cancel?.method == .post)
    }
}

extension Result {
    /// The error, when this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// The builder read straight from JSON text, as the API reads a body.
@Suite struct AlertSpecJSONReadingTests {
    @Test func unknownKeysAreListedBeforeWhatTheFieldsFound() throws {
        let errors = try #require(try AlertSpec.Builder(json: #"{"labels": {"env": 1}, "title": "t", "zeta": 1, "alpha": 2}"#)
            .build().failure)
        #expect(errors.errors.map(\.field) == ["alpha", "zeta", "labels.env"])
    }

    @Test func passedKeysComeBackAsReadAndAreNotFields() throws {
        let text = #"{"title": "t", "template": "disk", "values": {"host": "db1"}}"#
        var text2 = text
        let (builder, passed) = try text2.withUTF8 { utf8 in
            var reader = StrictJSON.Reader(bytes: UnsafeRawBufferPointer(utf8))
            return try AlertSpec.Builder.reading(&reader, passing: ["template", "values"])
        }
        #expect(passed["template"] as? String == "disk")
        #expect(passed["values"] as? [String: String] == ["host": "db1"])
        #expect(try builder.build().get().title == "t")
        // Without passing them they are unknown fields.
        let errors = try #require(try AlertSpec.Builder(json: text).build().failure)
        #expect(Set(errors.errors.filter { $0.code == .unknownField }.map(\.field)) == ["template", "values"])
    }

    @Test func onlyAnObjectIsAnAlert() {
        #expect(throws: StrictJSON.Failure.self) { try AlertSpec.Builder(json: #"["title"]"#) }
        #expect(throws: StrictJSON.Failure.self) { try AlertSpec.Builder(json: #"{"title": "t"} 1"#) }
    }
}
