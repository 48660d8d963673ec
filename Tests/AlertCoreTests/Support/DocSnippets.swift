import Foundation
import Testing

/// The snippets of a docs page, each the fenced block after a
/// `<!-- snippet: name -->` line, so a test runs exactly what the page
/// tells people to write.
struct DocSnippets {
    let page: String
    private let text: String

    init(_ page: String) throws {
        self.page = page
        text = try String(contentsOf: OpenAPIDocumentTests.packageRoot.appendingPathComponent(page), encoding: .utf8)
    }

    /// The snippet's text, with each `replacements` key replaced by its
    /// value (the page's example ports and paths by the test's own).
    func snippet(_ name: String, _ replacements: [String: String] = [:]) throws -> String {
        guard let marker = text.range(of: "<!-- snippet: \(name) -->\n"),
              let open = text.range(of: "```", range: marker.upperBound..<text.endIndex),
              let bodyStart = text.range(of: "\n", range: open.upperBound..<text.endIndex),
              let close = text.range(of: "\n```", range: bodyStart.upperBound..<text.endIndex)
        else { throw TestDaemon.Failure("\(page) has no snippet `\(name)`") }
        var body = String(text[bodyStart.upperBound..<close.lowerBound]) + "\n"
        // A page whose examples changed would leave the test's values out.
        #expect(replacements.isEmpty || replacements.keys.contains(where: body.contains),
                "snippet \(name) in \(page) contains none of \(replacements.keys.sorted())")
        for (from, to) in replacements {
            body = body.replacingOccurrences(of: from, with: to)
        }
        return body
    }
}
