/// roff source for man pages, built line by line, and the escaping its
/// text needs: backslashes, dashes that are minus signs (options must copy
/// and paste as `-`, not as a hyphen), and lines that would read as requests.
struct Roff {
    /// The source so far; each line ends in a newline.
    private(set) var text = ""

    /// A comment line.
    mutating func comment(_ comment: String) {
        text += ".\\\" " + comment + "\n"
    }

    /// A request or macro call, e.g. `.SH "EXIT STATUS"`.
    mutating func request(_ name: String, _ arguments: [String] = []) {
        let quoted = arguments.map { argument -> String in
            let escaped = Self.escape(argument).replacing("\"", with: "\"\"")
            return escaped.isEmpty || escaped.contains(" ") ? "\"" + escaped + "\"" : escaped
        }
        text += "." + ([name] + quoted).joined(separator: " ") + "\n"
    }

    /// A line that is roff already (escaped, with font changes). One that
    /// starts with `.` or `'` would be a request: `\&` keeps it text.
    mutating func line(_ roff: String) {
        let guarded = roff.hasPrefix(".") || roff.hasPrefix("'") ? "\\&" + roff : roff
        text += guarded + "\n"
    }

    /// Prose: escaped, with `` `code` `` in bold.
    mutating func text(_ prose: String) {
        line(Self.prose(prose))
    }

    /// `text` in bold, every character literal.
    static func bold(_ text: String) -> String { "\\fB" + escape(text) + "\\fR" }

    /// `text` in italics, every character literal.
    static func italic(_ text: String) -> String { "\\fI" + escape(text) + "\\fR" }

    /// Literal text: backslashes printed, every dash a minus sign.
    static func escape(_ text: String) -> String {
        text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
    }

    /// Prose: backslashes printed; dashes are minus signs in words that start
    /// with one (`--json`, `-t`), hyphens elsewhere (`built-in`); backticked
    /// spans in bold.
    static func prose(_ text: String) -> String {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().map { index, span in
            if index % 2 == 1 { return bold(String(span)) }
            return span.split(separator: " ", omittingEmptySubsequences: false).map { word in
                let start = word.first { !"'\"([{<".contains($0) }
                let escaped = word.replacing("\\", with: "\\e")
                return start == "-" ? escaped.replacing("-", with: "\\-") : escaped
            }.joined(separator: " ")
        }.joined()
    }
}
