import Foundation
import Testing
@testable import AlertModel
@testable import AlertdDelivery

/// docs/CONFIGURATION.md documents every presenter type with an example
/// that alertd reads without a problem, and every key the type reads.
@Suite struct PresenterDocumentationTests {
    static let types = PresenterRegistry.documentedTypes.map { $0.typeName }

    /// The text between `**`<type>`**` and the next type's heading.
    static func section(_ type: String) throws -> Substring {
        let doc = try RepositoryFiles.contents("docs/CONFIGURATION.md")
        guard let start = doc.range(of: "**`\(type)`**") else { throw TestDaemon.Failure("docs/CONFIGURATION.md has no **`\(type)`** section") }
        let rest = doc[start.upperBound...]
        let end = rest.range(of: "\n**`")?.lowerBound ?? rest.range(of: "\n### ")?.lowerBound ?? rest.endIndex
        return rest[..<end]
    }

    @Test(arguments: types)
    func theExampleIsReadWithoutProblems(_ type: String) throws {
        let section = try Self.section(type)
        let fence = try #require(section.range(of: "```json\n"), "no example for \(type)")
        let close = try #require(section[fence.upperBound...].range(of: "\n```"))
        let fragment = section[fence.upperBound..<close.lowerBound]
        let object = try #require(try JSONSerialization.jsonObject(with: Data(("{" + fragment + "}").utf8)) as? [String: Any])
        let (name, raw) = try #require(object.first)
        #expect((raw as? [String: Any])?["type"] as? String == type)
        let reader = JSONConfigReader()
        let definition = PresenterRegistry.definition(named: name, from: raw, at: "presenters.\(name)", reader)
        #expect(reader.problems == [])
        #expect(definition?.typeName == type)
    }

    @Test(arguments: types)
    func everyKeyIsDocumented(_ type: String) throws {
        let section = try Self.section(type)
        let keys = try #require(PresenterRegistry.type(named: type)).keys
        for key in keys {
            #expect(section.contains("`\(key)`"), "\(type): `\(key)` is not documented")
        }
    }

    @Test(arguments: types)
    func theExampleRenderUsesIsReadWithoutProblems(_ type: String) throws {
        let presenterType = try #require(PresenterRegistry.type(named: type))
        var raw = presenterType.example
        raw["type"] = type
        let reader = JSONConfigReader()
        _ = PresenterRegistry.definition(named: "render", from: raw, at: "render", reader)
        #expect(reader.problems == [])
    }
}

extension PresenterDocumentationTests {
    /// The follow-ups table says, for every type, what its code does.
    @Test func theFollowUpsTableMatchesEachType() throws {
        let doc = try RepositoryFiles.contents("docs/CONFIGURATION.md")
        let start = try #require(doc.range(of: "#### Follow-ups"))
        let rows = doc[start.upperBound...].split(separator: "\n").filter { $0.hasPrefix("| `") }
        var documented: [String: String] = [:]
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count >= 2 { documented[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[1] }
        }
        for type in PresenterRegistry.documentedTypes {
            let expected = switch type.followUps {
            case .unsupported: "none"
            case .onByDefault: "on"
            case .offByDefault: "off"
            }
            #expect(documented[type.typeName] == expected, "\(type.typeName)")
        }
    }
}
