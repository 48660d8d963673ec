import Foundation
import Testing

/// The target graph's rules that the compiler cannot enforce by itself.
@Suite struct SourceImportTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// Each Swift file under Sources, as (target, path relative to Sources, text).
    static func files() throws -> [(target: String, path: String, text: String)] {
        let paths = FileManager.default.subpaths(atPath: sources.path) ?? []
        return try paths.filter { $0.hasSuffix(".swift") }.sorted().map { path in
            (String(path.split(separator: "/")[0]), path, try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8))
        }
    }

    static func imports(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard let i = words.firstIndex(of: "import"), i + 1 < words.count,
                  words[..<i].allSatisfy({ $0.hasPrefix("@") || $0 == "package" || $0 == "public" }) else { return nil }
            return String(words[i + 1])
        }
    }

    @Test func sourcesFoundThemselves() throws {
        #expect(try Self.files().count > 100)
    }

    /// Full Foundation brings ICU and its data (~35 MB in each static binary).
    @Test func noTargetImportsFullFoundation() throws {
        let offenders = try Self.files().filter { Self.imports($0.text).contains("Foundation") }.map(\.path)
        #expect(offenders.isEmpty, "import FoundationEssentials instead in: \(offenders)")
    }

    /// Only the edge targets talk to C.
    @Test func onlyEdgeTargetsImportC() throws {
        let edges: Set = ["AlertdPOSIX", "AlertdSQLite", "AlertdCurl", "AlertdHTTPServer", "AlertdCrypto", "AlertdPostgres"]
        let offenders = try Self.files().filter { file in
            !edges.contains(file.target) && Self.imports(file.text).contains { $0 == "Glibc" || $0 == "Darwin" || ($0.hasPrefix("C") && $0.dropFirst().first?.isUppercase == true) }
        }.map(\.path)
        #expect(offenders.isEmpty, "C imported outside the edge targets in: \(offenders)")
    }
}
