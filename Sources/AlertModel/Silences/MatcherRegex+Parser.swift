extension MatcherRegex {
    /// The parsed pattern, before it is compiled.
    indirect enum Node: Sendable {
        case empty
        case scalar(UInt32)
        case any
        case set(ScalarSet)
        case concat([Node])
        case alternate([Node])
        case repetition(Node, min: Int, max: Int?)
        case start
        case end
    }

    /// RE2's limit on a counted repetition.
    static let maxRepeat = 1_000

    /// The longest pattern read, in Unicode scalars. The program's own cap
    /// bounds every construct but a class, which is one instruction however
    /// many ranges it lists: a 900 KB class once slowed every delivery.
    static let maxLength = 8_192

    /// How deep groups may nest. Parsing, compiling and freeing the tree
    /// each recurse once a level: some 12,000 levels overflowed a thread's
    /// stack (the store writer's, reading a stored silence, at every start).
    static let maxDepth = 100

    /// A recursive-descent parser for the subset; each refusal names the
    /// construct and what to write instead.
    struct Parser {
        private let scalars: [Unicode.Scalar]
        private var i = 0
        private var depth = 0
        private let pattern: String

        init(_ pattern: String) {
            self.pattern = pattern
            scalars = Array(pattern.unicodeScalars)
        }

        /// The tree and whether the pattern starts with `(?i)`.
        mutating func parse() throws(SilenceError) -> (Node, Bool) {
            guard scalars.count <= MatcherRegex.maxLength else {
                throw SilenceError(.invalidRegex, "The regex `\(pattern.prefix(40))…` is \(scalars.count) characters long; "
                                   + "matchers take at most \(MatcherRegex.maxLength).")
            }
            var caseInsensitive = false
            if scalars.starts(with: "(?i)".unicodeScalars) {
                caseInsensitive = true
                i = 4
            }
            let node = try alternation()
            if i < scalars.count {
                // Only an unmatched `)` stops the top level early.
                throw invalid("it has an unmatched `)`")
            }
            return (node, caseInsensitive)
        }

        private var peek: Unicode.Scalar? { i < scalars.count ? scalars[i] : nil }

        private func invalid(_ what: String) -> SilenceError {
            SilenceError(.invalidRegex, "The regex `\(pattern)` is not valid: \(what).")
        }

        /// `instead`, when given, ends the message: what to write in its place.
        private func unsupported(_ what: String, instead: String? = nil) -> SilenceError {
            SilenceError(.unsupportedRegex,
                         "The regex `\(pattern)` uses \(what), which alertd's matchers do not support; they take literals, `.`, classes such as [a-z] and \\d \\w \\s, groups, `|`, `* + ? {n,m}`, and a leading (?i)."
                            + (instead.map { " \($0)" } ?? ""))
        }

        private mutating func alternation() throws(SilenceError) -> Node {
            var branches = [try concatenation()]
            while peek == "|" {
                i += 1
                branches.append(try concatenation())
            }
            return branches.count == 1 ? branches[0] : .alternate(branches)
        }

        private mutating func concatenation() throws(SilenceError) -> Node {
            var items: [Node] = []
            while let c = peek, c != "|", c != ")" {
                items.append(try repetition())
            }
            switch items.count {
            case 0: return .empty
            case 1: return items[0]
            default: return .concat(items)
            }
        }

        private mutating func repetition() throws(SilenceError) -> Node {
            var node = try atom()
            var repeated = false
            while let c = peek {
                let bounds: (Int, Int?)
                switch c {
                case "*": bounds = (0, nil); i += 1
                case "+": bounds = (1, nil); i += 1
                case "?": bounds = (0, 1); i += 1
                case "{":
                    guard let counted = try countedRepeat() else { return node }
                    bounds = counted
                default: return node
                }
                if repeated { throw invalid("a repetition operator follows another one; use a group, e.g. (a*)*") }
                repeated = true
                // A lazy quantifier finds the same whole matches as a greedy one.
                if peek == "?" { i += 1 }
                node = .repetition(node, min: bounds.0, max: bounds.1)
            }
            return node
        }

        /// `{n}`, `{n,}` or `{n,m}` at `i`; nil (and `i` unmoved) when the
        /// brace starts no repetition, which RE2 then reads as a literal.
        private mutating func countedRepeat() throws(SilenceError) -> (Int, Int?)? {
            var j = i + 1
            func number() -> Int? {
                var value: Int?
                while j < scalars.count, (0x30...0x39).contains(scalars[j].value) {
                    value = min((value ?? 0) * 10 + Int(scalars[j].value - 0x30), 100_000)
                    j += 1
                }
                return value
            }
            guard let low = number() else { return nil }
            var high: Int? = low
            if j < scalars.count, scalars[j] == "," {
                j += 1
                high = number()
            }
            guard j < scalars.count, scalars[j] == "}" else { return nil }
            i = j + 1
            if low > MatcherRegex.maxRepeat || (high ?? 0) > MatcherRegex.maxRepeat {
                throw invalid("a counted repetition goes above \(MatcherRegex.maxRepeat)")
            }
            if let high, high < low { throw invalid("the repetition {\(low),\(high)} has its bounds the wrong way round") }
            return (low, high)
        }

        private mutating func atom() throws(SilenceError) -> Node {
            let c = scalars[i]
            i += 1
            switch c {
            case "(": return try group()
            case "[": return try characterClass()
            case ".": return .any
            case "^": return .start
            case "$": return .end
            case "\\": return try escape(inClass: false).node
            case "*", "+", "?": throw invalid("`\(c)` has nothing before it to repeat")
            default: return .scalar(c.value)
            }
        }

        private mutating func group() throws(SilenceError) -> Node {
            depth += 1
            defer { depth -= 1 }
            guard depth <= MatcherRegex.maxDepth else {
                throw SilenceError(.invalidRegex, "The regex `\(pattern.prefix(40))…` nests groups more than \(MatcherRegex.maxDepth) deep.")
            }
            if peek == "?" {
                i += 1
                let rest = String(String.UnicodeScalarView(scalars[i...].prefix(3)))
                if rest.hasPrefix(":") {
                    i += 1
                } else if rest.hasPrefix("P<") || (rest.hasPrefix("<") && !rest.hasPrefix("<=") && !rest.hasPrefix("<!")) {
                    i += rest.hasPrefix("P") ? 2 : 1
                    let start = i
                    while let c = peek, c == "_" || c.properties.isAlphabetic || c.properties.numericType == .decimal { i += 1 }
                    guard i > start, peek == ">" else { throw invalid("a named group needs a name of letters, digits and underscores, then `>`") }
                    i += 1
                } else if rest.hasPrefix("=") || rest.hasPrefix("!") || rest.hasPrefix("<") {
                    throw unsupported("lookaround (RE2 has none either)")
                } else {
                    throw unsupported("a flag group `(?\(rest.prefix { $0 != ")" && $0 != ":" })` (only a leading `(?i)` is supported)")
                }
            }
            let inner = try alternation()
            guard peek == ")" else { throw invalid("a `(` is never closed") }
            i += 1
            return inner
        }

        private mutating func characterClass() throws(SilenceError) -> Node {
            var set = ScalarSet(ranges: [], negated: false)
            if peek == "^" {
                set.negated = true
                i += 1
            }
            var first = true
            while true {
                guard let c = peek else { throw invalid("a `[` is never closed") }
                if c == "]" && !first { i += 1; break }
                first = false
                if c == "[" && i + 1 < scalars.count && scalars[i + 1] == ":" {
                    throw unsupported("a POSIX class such as [[:alpha:]]", instead: "Write the range instead, e.g. [a-zA-Z].")
                }
                i += 1
                let low: UInt32
                if c == "\\" {
                    let escaped = try escape(inClass: true)
                    guard let scalar = escaped.scalar else {
                        if case .set(let s) = escaped.node { set.ranges += s.negated ? Self.complement(s.ranges) : s.ranges }
                        continue
                    }
                    low = scalar
                } else {
                    low = c.value
                }
                // `a-z`, but a `-` before the closing `]` is itself.
                if peek == "-", i + 1 < scalars.count, scalars[i + 1] != "]" {
                    i += 1
                    let h = scalars[i]
                    i += 1
                    let high: UInt32
                    if h == "\\" {
                        guard let scalar = try escape(inClass: true).scalar else { throw invalid("a class range ends in a class such as \\d") }
                        high = scalar
                    } else {
                        high = h.value
                    }
                    guard low <= high else { throw invalid("the class range from U+\(String(low, radix: 16)) to U+\(String(high, radix: 16)) is backwards") }
                    set.ranges.append(low...high)
                } else {
                    set.ranges.append(low...low)
                }
            }
            return .set(set.merged())
        }

        /// After a `\`: a single scalar, or a class such as `\d`.
        private mutating func escape(inClass: Bool) throws(SilenceError) -> (node: Node, scalar: UInt32?) {
            guard let c = peek else { throw invalid("it ends in a lone `\\`") }
            i += 1
            func one(_ v: UInt32) -> (Node, UInt32?) { (.scalar(v), v) }
            switch c {
            case "d": return (.set(.digits), nil)
            case "w": return (.set(.word), nil)
            case "s": return (.set(.space), nil)
            case "D": return (.set(ScalarSet(ranges: ScalarSet.digits.ranges, negated: true)), nil)
            case "W": return (.set(ScalarSet(ranges: ScalarSet.word.ranges, negated: true)), nil)
            case "S": return (.set(ScalarSet(ranges: ScalarSet.space.ranges, negated: true)), nil)
            case "t": return one(0x09)
            case "n": return one(0x0A)
            case "r": return one(0x0D)
            case "f": return one(0x0C)
            case "v": return one(0x0B)
            case "x": return one(try hexEscape())
            case "1"..."9": throw unsupported("a backreference (RE2 has none either)")
            case "b", "B": throw unsupported("the word-boundary assertion `\\\(c)`")
            case "A", "z": throw unsupported("the assertion `\\\(c)` (not needed: a matcher always matches the whole value)")
            case "p", "P": throw unsupported("a Unicode class `\\\(c)`")
            case "Q", "E": throw unsupported("`\\Q…\\E` quoting; escape each character with `\\` instead")
            default:
                // Any escaped punctuation is itself, as in RE2.
                if c.isASCII && !c.properties.isAlphabetic && c.properties.numericType == nil {
                    return one(c.value)
                }
                throw invalid("`\\\(c)` is not an escape sequence")
            }
        }

        /// `HH` or `{H…}` after `\x`.
        private mutating func hexEscape() throws(SilenceError) -> UInt32 {
            var digits = ""
            if peek == "{" {
                i += 1
                while let c = peek, c != "}" { digits.unicodeScalars.append(c); i += 1 }
                guard peek == "}" else { throw invalid("a `\\x{` is never closed") }
                i += 1
            } else {
                for _ in 0..<2 {
                    guard let c = peek else { break }
                    digits.unicodeScalars.append(c)
                    i += 1
                }
            }
            guard !digits.isEmpty, digits.count <= 6, let value = UInt32(digits, radix: 16), Unicode.Scalar(value) != nil else {
                throw invalid("`\\x\(digits)` is not a hexadecimal code point")
            }
            return value
        }

        static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
            var out: [ClosedRange<UInt32>] = []
            var next: UInt32 = 0
            for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
                next = max(next, r.upperBound + 1)
            }
            if next <= 0x10FFFF { out.append(next...0x10FFFF) }
            return out
        }
    }

    /// Turns the tree into the program the matcher runs.
    struct Compiler {
        /// Past this many instructions a pattern is refused: nested counted
        /// repetitions multiply, and a match steps up to every instruction
        /// at every character. At 20,000, `((a{0,20}){0,20}){0,20}c` took
        /// 0.27 s of a release build per 1,000-character label, for as many
        /// alerts as a filter is asked of. 4,000 still holds any one counted
        /// repetition RE2 allows (`.{0,1000}`, `[a-z]{1000}`).
        static let maxInstructions = 4_000

        /// Past this many nodes visited a pattern is refused too: a
        /// repetition of what emits nothing (`(?:)`) never grows the
        /// program, and `(?:(?:(?:){1000}){1000}){1000}` visited a billion,
        /// seconds of a core for one listing's filter.
        static let maxVisits = 100 * maxInstructions

        let pattern: String
        let caseInsensitive: Bool
        var program: [Instruction] = []
        private var visits = 0

        init(pattern: String, caseInsensitive: Bool) {
            self.pattern = pattern
            self.caseInsensitive = caseInsensitive
        }

        mutating func append(_ instruction: Instruction) { program.append(instruction) }

        mutating func emit(_ node: Node) throws(SilenceError) {
            visits += 1
            guard program.count <= Self.maxInstructions, visits <= Self.maxVisits else {
                throw SilenceError(.invalidRegex, "The regex `\(pattern)` is too large once its repetitions are spelled out; simplify it or use smaller counts.")
            }
            switch node {
            case .empty: break
            case .scalar(let v): append(.scalar(caseInsensitive ? MatcherRegex.fold(v) : v))
            case .any: append(.any)
            case .set(let s): append(.set(s))
            case .start: append(.assertStart)
            case .end: append(.assertEnd)
            case .concat(let items):
                for item in items { try emit(item) }
            case .alternate(let branches):
                var jumps: [Int] = []
                for (n, branch) in branches.enumerated() {
                    if n < branches.count - 1 {
                        let split = program.count
                        append(.split(split + 1, -1))
                        try emit(branch)
                        jumps.append(program.count)
                        append(.jump(-1))
                        program[split] = .split(split + 1, program.count)
                    } else {
                        try emit(branch)
                    }
                }
                for j in jumps { program[j] = .jump(program.count) }
            case .repetition(let inner, let low, let high):
                for _ in 0..<low { try emit(inner) }
                if let high {
                    for _ in low..<high {
                        let split = program.count
                        append(.split(split + 1, -1))
                        try emit(inner)
                        program[split] = .split(split + 1, program.count)
                    }
                } else {
                    let split = program.count
                    append(.split(split + 1, -1))
                    try emit(inner)
                    append(.jump(split))
                    program[split] = .split(split + 1, program.count)
                }
            }
        }
    }
}
