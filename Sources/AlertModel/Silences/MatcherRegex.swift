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
    /// The scalars of a pattern that is only literal ones, case-sensitive.
    private let literal: [Unicode.Scalar]?
    /// Whether the program asserts the end (`$`), which needs the input's length.
    private let matchesEnd: Bool
    /// The scalars (folded, for a case-insensitive pattern) every match
    /// starts with: the program's leading run of single-scalar steps.
    let prefix: [UInt32]
    /// The literal texts one of which every match starts with
    /// (``literalStarts(of:caseInsensitive:)``), or nil.
    let starts: [[Unicode.Scalar]]?

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
        let scalars = compiler.program.dropLast().compactMap { step -> Unicode.Scalar? in
            if case .scalar(let value) = step { return Unicode.Scalar(value) }
            return nil
        }
        literal = !caseInsensitive && scalars.count == compiler.program.count - 1 ? scalars : nil
        matchesEnd = compiler.program.contains(.assertEnd)
        // Execution starts at the first step and each single-scalar step
        // leads only to the next, so a match consumes these first, whatever
        // later jumps back into them.
        var prefix: [UInt32] = []
        for step in compiler.program.drop(while: { $0 == .assertStart }) {
            guard case .scalar(let value) = step else { break }
            prefix.append(value)
        }
        self.prefix = prefix
        starts = Self.literalStarts(of: node, caseInsensitive: caseInsensitive)
    }

    public var description: String { pattern }

    /// The most steps a match takes per character of the value: one per
    /// instruction of the program.
    public var stepsPerCharacter: Int { program.count }

    /// The most instructions a regex may have; what its steps per character
    /// may reach.
    public static var maxStepsPerCharacter: Int { Compiler.maxInstructions }

    public static func == (a: MatcherRegex, b: MatcherRegex) -> Bool { a.pattern == b.pattern }

    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    /// True when the pattern matches all of `text`. Every claim holds the
    /// active silences its index finds against its alert: a plain literal is compared as
    /// such, and the NFA's lists live in one temporary allocation (seven
    /// heap allocations a match made a thousand regex silences cost
    /// seconds over a few thousand alerts). A text that does not start with
    /// the pattern's literal prefix is refused before the NFA runs: the
    /// usual silence, `instance=~"host-1\\.example:.*"`, refuses nearly
    /// every other alert that way, as Go's regexp does.
    public func wholeMatch(_ text: String) -> Bool {
        var work = 0
        return wholeMatch(text, work: &work)
    }

    /// ``wholeMatch(_:)``, adding to `work` the NFA steps it took: one for
    /// each live thread at each scalar. A step costs a few nanoseconds, but
    /// a pattern of thousands of steps held against a long value costs
    /// milliseconds, so a caller matching client-sent regexes over many
    /// alerts counts them to bound the whole and to yield between.
    public func wholeMatch(_ text: String, work: inout Int) -> Bool {
        if let literal { return text.unicodeScalars.elementsEqual(literal) }
        if !prefix.isEmpty {
            var scalars = text.unicodeScalars.makeIterator()
            for value in prefix {
                guard let scalar = scalars.next() else { return false }
                if (caseInsensitive ? Self.fold(scalar.value) : scalar.value) != value { return false }
            }
        }
        let size = program.count
        let count = matchesEnd ? text.unicodeScalars.count : -1
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 6 * size + 2) { space in
            var current = ThreadList(UnsafeMutableBufferPointer(rebasing: space[0..<(2 * size)]))
            var next = ThreadList(UnsafeMutableBufferPointer(rebasing: space[(2 * size)..<(4 * size)]))
            let stack = UnsafeMutableBufferPointer(rebasing: space[(4 * size)...])
            add(0, at: 0, of: count, to: &current, stack: stack)
            var position = 0
            for scalar in text.unicodeScalars {
                if current.isEmpty { return false }
                next.clear()
                position += 1
                work += current.count
                let value = caseInsensitive ? Self.fold(scalar.value) : scalar.value
                // A class compares the scalar's other case too; found once
                // here, not by each thread (Unicode's tables, for a letter
                // outside ASCII).
                let other = caseInsensitive ? Self.upper(scalar.value) : scalar.value
                for k in 0..<current.count {
                    let pc = current.pc(k)
                    let accepts = switch program[pc] {
                    case .scalar(let s): s == value
                    case .any: scalar.value != 0x0A
                    case .set(let set): caseInsensitive ? set.contains(anyOf: scalar.value, value, other) : set.contains(scalar.value)
                    default: false
                    }
                    if accepts { add(pc + 1, at: position, of: count, to: &next, stack: stack) }
                }
                swap(&current, &next)
            }
            return (0..<current.count).contains { program[current.pc($0)] == .match }
        }
    }

    /// Follows every empty step from `pc` (splits, jumps, anchors that hold
    /// at `position`), adding the instructions that consume or match.
    /// `stack` has room for two entries an instruction: each is marked
    /// before what it leads to is pushed, and pushes at most two.
    private func add(_ pc: Int, at position: Int, of count: Int, to list: inout ThreadList, stack: UnsafeMutableBufferPointer<Int32>) {
        var top = 0
        stack[top] = Int32(pc)
        top += 1
        while top > 0 {
            top -= 1
            let pc = Int(stack[top])
            guard list.mark(pc) else { continue }
            switch program[pc] {
            case .split(let a, let b):
                stack[top] = Int32(b)
                stack[top + 1] = Int32(a)
                top += 2
            case .jump(let to): stack[top] = Int32(to); top += 1
            case .assertStart: if position == 0 { stack[top] = Int32(pc + 1); top += 1 }
            case .assertEnd: if position == count { stack[top] = Int32(pc + 1); top += 1 }
            case .scalar, .any, .set, .match: list.append(pc)
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

    /// The threads alive at one position, each instruction at most once:
    /// the live instructions, then a mark per instruction, in `storage`.
    private struct ThreadList {
        private let storage: UnsafeMutableBufferPointer<Int32>
        private(set) var count = 0
        private var generation: Int32 = 1

        /// `storage` holds two entries an instruction.
        init(_ storage: UnsafeMutableBufferPointer<Int32>) {
            self.storage = storage
            storage.update(repeating: 0)
        }

        var isEmpty: Bool { count == 0 }

        func pc(_ k: Int) -> Int { Int(storage[k]) }

        mutating func append(_ pc: Int) {
            storage[count] = Int32(pc)
            count += 1
        }

        /// True the first time `pc` is seen at this position.
        mutating func mark(_ pc: Int) -> Bool {
            let slot = storage.count / 2 + pc
            if storage[slot] == generation { return false }
            storage[slot] = generation
            return true
        }

        mutating func clear() {
            count = 0
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
        inRanges(value) != negated
    }

    /// Under `(?i)`: whether a scalar's cases (`a`, `b`, `c`) are in the
    /// class, which is folded before it is negated, as Go does: `[^p]` takes
    /// no `P`. Negating each case on its own, `(?i)[^p].*` matched `PROD`
    /// by its `P`, and silenced alerts Alertmanager would not.
    func contains(anyOf a: UInt32, _ b: UInt32, _ c: UInt32) -> Bool {
        (inRanges(a) || inRanges(b) || inRanges(c)) != negated
    }

    private func inRanges(_ value: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < value { low = mid + 1 } else { high = mid }
        }
        return low < ranges.count && ranges[low].contains(value)
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

    static let digits = ScalarSet(ranges: [0x30...0x39], negated: false)
    static let word = ScalarSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A], negated: false)
    /// RE2's `\s`: tab, newline, form feed, carriage return, space.
    static let space = ScalarSet(ranges: [0x09...0x0A, 0x0C...0x0D, 0x20...0x20], negated: false)
}
