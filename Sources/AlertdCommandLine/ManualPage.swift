/// What a tool's man page says beyond its command tree: the sections no
/// ``CommandConfiguration`` holds. ``ManPage`` writes the page from both, so
/// the synopsis and every option come from the same declarations as `--help`
/// and the bash completion, and only prose is written by hand.
///
/// Text may mark words for bold type with backticks (`` `alertctl list` ``);
/// everything else is plain, as in help texts.
public struct ManualPage: Sendable {
    /// A term and what it means: an exit status, a variable, a file.
    public struct Item: Sendable {
        public var term: String
        public var text: String

        public init(_ term: String, _ text: String) {
            self.term = term
            self.text = text
        }
    }

    /// A piece of running text.
    public enum Block: Sendable {
        /// A paragraph; a single newline in it breaks the line.
        case paragraph(String)
        /// A list of terms, each with its text indented below.
        case items([Item])
        /// Lines shown as they are, in a fixed-width font: commands, config.
        case example(String)
        /// A subsection heading.
        case subsection(String)
        /// The root command's discussion, as `--help` shows it. Without
        /// this block, DESCRIPTION ends with it.
        case discussion
    }

    /// A section of its own, e.g. SIGNALS.
    public struct Section: Sendable {
        public var title: String
        public var blocks: [Block]

        public init(_ title: String, _ blocks: [Block]) {
            self.title = title
            self.blocks = blocks
        }
    }

    /// One example: what it does, then the command line.
    public struct Example: Sendable {
        public var text: String
        public var command: String

        public init(_ text: String, _ command: String) {
            self.text = text
            self.command = command
        }
    }

    /// The manual section: "1" for user commands, "8" for daemons.
    public var section: String
    /// The manual the page belongs to, shown in the header: "User Commands".
    public var manual: String
    /// What the page documents, with its version, shown in the footer: "alertd 0.1.0".
    public var source: String
    /// The date of the version documented, `December 7, 2026`, in the header; a
    /// fixed one, so the page is the same whenever it is made.
    public var date: String
    /// DESCRIPTION, with the root command's discussion where
    /// ``Block/discussion`` places it, else at the end.
    public var description: [Block]
    /// Sections after OPTIONS and COMMANDS, before EXIT STATUS.
    public var sections: [Section]
    public var exitStatus: [Item]
    public var environment: [Item]
    /// Paths, shown in italics.
    public var files: [Item]
    public var examples: [Example]
    /// Other pages, as `name(section)`.
    public var seeAlso: [String]

    public init(
        section: String, manual: String, source: String, date: String, description: [Block], sections: [Section] = [],
        exitStatus: [Item], environment: [Item] = [], files: [Item] = [], examples: [Example] = [],
        seeAlso: [String] = []
    ) {
        self.section = section
        self.manual = manual
        self.source = source
        self.date = date
        self.description = description
        self.sections = sections
        self.exitStatus = exitStatus
        self.environment = environment
        self.files = files
        self.examples = examples
        self.seeAlso = seeAlso
    }
}
