/// A regular expression as an Alertmanager matcher uses it: anchored at both
/// ends (`^(?:pattern)$`), in the subset of RE2 syntax that alertd
/// implements, matched over Unicode scalars in time linear in the input (a
/// Thompson NFA, as RE2 does), so no pattern can stall the daemon.
///
/// The subset: literals and `\`-escaped punctuation; `.` (any character but
/// a newline); classes `[abc]`, `[a-z]`, `[^…]`; `\d \w \s \D \W \S`; `\t \n
/// \r \f \v`, `\xHH`, `\x{HHHH}`; groups `(…)`, `(?:…)`, `(?P<name>…)`;
/// alternation `|`; `* + ? {n} {n,} {n,m}` (m ≤ 1000), lazy or not; `^` and
/// `$`; and `(?i)` at the very start for a case-insensitive match. Anything
/// else RE2 knows (`\b`, `\pL`, `[[:alpha:]]`, other flags) is refused with
/// ``SilenceError/Code/unsupportedRegex`` rather than read differently.
public struct MatcherRegex: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as given, without the implied anchors.
    public let pattern: String
    let program: [Instruction]
    let caseInsensitive: Bool

    /// Compiles `pattern`; throws `invalid_regex` or `unsupported_regex`.
    public init(_ pattern: String) throws(SilenceError) {
        var parser = Parser(pattern)
        let (node, caseInsensitive) = try parser.parse()
        var compiler = Compiler(pattern: pattern, caseInsensitive: caseInsensitive)
        try compiler.emit(node)
        compiler.append(.match)
        self.pattern = pattern
        self.program = compiler.program
        self.caseInsensitive = caseInsensitive
    }

    public var description: String { pattern }

    public static func == (a: MatcherRegex, b: MatcherRegex) -> Bool { a.pattern == b.pattern }

    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    /// True when the pattern matches all of `text`.
    public func wholeMatch(_ text: String) -> Bool {
        let input = Array(text.unicodeScalars)
        var current = ThreadList(size: program.count)
        var next = ThreadList(size: program.count)
        add(0, at: 0, of: input.count, to: &current)
        for (i, scalar) in input.enumerated() {
            if current.pcs.isEmpty { return false }
            next.clear()
            let value = caseInsensitive ? Self.fold(scalar.value) : scalar.value
            for pc in current.pcs {
                let accepts = switch program[pc] {
                case .scalar(let s): s == value
                case .any: scalar.value != 0x0A
                case .set(let set): set.contains(scalar.value) || (caseInsensitive && set.containsFolded(scalar.value))
                default: false
                }
                if accepts { add(pc + 1, at: i + 1, of: input.count, to: &next) }
            }
            swap(&current, &next)
        }
        return current.pcs.contains { program[$0] == .match }
    }

    /// Follows every empty step from `pc` (splits, jumps, anchors that hold
    /// at `position`), adding the instructions that consume or match.
    private func add(_ pc: Int, at position: Int, of count: Int, to list: inout ThreadList) {
        // The list's own stack: one allocation per match, not one per thread.
        list.stack.append(pc)
        defer { list.stack.removeAll(keepingCapacity: true) }
        while let pc = list.stack.popLast() {
            guard list.mark(pc) else { continue }
            switch program[pc] {
            case .split(let a, let b): list.stack.append(b); list.stack.append(a)
            case .jump(let to): list.stack.append(to)
            case .assertStart: if position == 0 { list.stack.append(pc + 1) }
            case .assertEnd: if position == count { list.stack.append(pc + 1) }
            case .scalar, .any, .set, .match: list.pcs.append(pc)
            }
        }
    }

    /// Simple case folding to lower case: ASCII at once, else the scalar's
    /// own lowercase mapping when it is a single scalar.
    static func fold(_ value: UInt32) -> UInt32 {
        if value < 0x80 { return (0x41...0x5A).contains(value) ? value + 0x20 : value }
        guard let scalar = Unicode.Scalar(value) else { return value }
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower.first!.value : value
    }

    /// The other case of a folded letter, for classes written in upper case.
    static func upper(_ value: UInt32) -> UInt32 {
        if value < 0x80 { return (0x61...0x7A).contains(value) ? value - 0x20 : value }
        guard let scalar = Unicode.Scalar(value) else { return value }
        let upper = scalar.properties.uppercaseMapping.unicodeScalars
        return upper.count == 1 ? upper.first!.value : value
    }

    /// One step of the compiled program.
    enum Instruction: Sendable, Equatable {
        case scalar(UInt32)
        case any
        case set(ScalarSet)
        case split(Int, Int)
        case jump(Int)
        case assertStart
        case assertEnd
        case match
    }

    /// The threads alive at one position, each instruction at most once.
    private struct ThreadList {
        var pcs: [Int] = []
        /// Work space for ``MatcherRegex/add(_:at:of:to:)``.
        var stack: [Int] = []
        private var marks: [UInt32]
        private var generation: UInt32 = 1

        init(size: Int) { marks = Array(repeating: 0, count: size) }

        /// True the first time `pc` is seen at this position.
        mutating func mark(_ pc: Int) -> Bool {
            if marks[pc] == generation { return false }
            marks[pc] = generation
            return true
        }

        mutating func clear() {
            pcs.removeAll(keepingCapacity: true)
            generation &+= 1
        }
    }
}

/// A character class: sorted ranges of scalar values, possibly negated.
struct ScalarSet: Sendable, Equatable {
    var ranges: [ClosedRange<UInt32>]
    var negated: Bool

    /// A binary search: the parser hands over its classes ``merged()``.
    func contains(_ value: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < value { low = mid + 1 } else { high = mid }
        }
        return (low < ranges.count && ranges[low].contains(value)) != negated
    }

    /// The same class with its ranges sorted and overlapping or adjacent
    /// ones joined, as ``contains(_:)`` needs them.
    func merged() -> ScalarSet {
        var out: [ClosedRange<UInt32>] = []
        out.reserveCapacity(ranges.count)
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, UInt64(r.lowerBound) <= UInt64(last.upperBound) + 1 {
                out[out.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
            } else {
                out.append(r)
            }
        }
        return ScalarSet(ranges: out, negated: negated)
    }

    /// For a case-insensitive match: whether the other case of `value` is in the class.
    func containsFolded(_ value: UInt32) -> Bool {
        contains(MatcherRegex.fold(value)) || contains(MatcherRegex.upper(value))
    }

    static let digits = ScalarSet(ranges: [0x30...0x39], negated: false)
    static let word = ScalarSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A], negated: false)
    /// RE2's `\s`: tab, newline, form feed, carriage return, space.
    static let space = ScalarSet(ranges: [0x09...0x0A, 0x0C...0x0D, 0x20...0x20], negated: false)
}
