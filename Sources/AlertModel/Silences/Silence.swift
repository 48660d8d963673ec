import FoundationEssentials

/// A rule that holds back the deliveries of the alerts it matches while it
/// is active: Alertmanager's silence. A future start makes it a maintenance
/// window. Alerts it matches are still stored and shown, marked as silenced.
public struct Silence: Sendable, Equatable, Codable {
    public var id: SilenceID
    /// All must match for the silence to apply.
    public var matchers: [LabelMatcher]
    public var startsAt: Date
    public var endsAt: Date
    /// Who made it; Alertmanager requires it.
    public var createdBy: String
    /// Why; Alertmanager requires it.
    public var comment: String
    public var updatedAt: Date

    public init(id: SilenceID = .generate(), matchers: [LabelMatcher], startsAt: Date, endsAt: Date,
                createdBy: String, comment: String, updatedAt: Date = Date()) {
        self.id = id
        self.matchers = matchers
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.createdBy = createdBy
        self.comment = comment
        self.updatedAt = updatedAt
    }

    /// Pending before its start, active until its end, expired from then on.
    public func state(at now: Date) -> SilenceState {
        if now >= endsAt { return .expired }
        return now < startsAt ? .pending : .active
    }

    /// True while it holds deliveries back.
    public func isActive(at now: Date) -> Bool { state(at: now) == .active }

    /// Whether it applies to an alert with these labels (its time aside).
    public func matches(_ labels: [String: String]) -> Bool {
        var work = 0
        return matches(labels, work: &work)
    }

    /// ``matches(_:)``, adding to `work` its regexes' steps
    /// (``MatcherRegex/wholeMatch(_:work:)``).
    public func matches(_ labels: [String: String], work: inout Int) -> Bool {
        for matcher in matchers where !matcher.matches(labels, work: &work) { return false }
        return true
    }

    /// The most matchers one silence may have.
    public static let maxMatchers = 64

    /// What its regexes cost together, in steps per character of a label.
    public var regexSteps: Int { matchers.reduce(0) { $0 + ($1.compiled?.stepsPerCharacter ?? 0) } }

    /// What the regexes of the silences in force or ahead may cost one
    /// alert together (``SilenceBudget``): about ten of the
    /// largest. Each claim holds its alert against those its index finds,
    /// so many silences, each within its own bound, would stall the store
    /// as one without a bound did.
    public static let maxRegexStepsInForce = 10 * MatcherRegex.maxStepsPerCharacter

    /// The rules a new or changed silence must keep, as Alertmanager's:
    /// some matcher, at least one that an unlabelled alert fails (or it would
    /// silence nearly everything), an author, a comment, an end after the
    /// start and not in the past.
    public func validate(at now: Date) throws(SilenceError) {
        func refuse(_ message: String) -> SilenceError { SilenceError(.invalidSilence, message) }
        if matchers.isEmpty { throw refuse("A silence needs at least one matcher, e.g. alertname=\"DiskFull\".") }
        if matchers.allSatisfy(\.matchesEmpty) {
            throw refuse("Every matcher of this silence also matches an alert without the label, so it would silence nearly everything; add one that needs a value, e.g. alertname=\"DiskFull\".")
        }
        if createdBy.trimmingSpaces().isEmpty { throw refuse("Say who makes the silence (createdBy; amtool -a).") }
        if comment.trimmingSpaces().isEmpty { throw refuse("Say why in a comment (amtool -c).") }
        // Every claim holds its alert against the silences filed under its labels, and against those filed under none: none may be large.
        if matchers.count > Self.maxMatchers { throw refuse("A silence has at most \(Self.maxMatchers) matchers; this one has \(matchers.count).") }
        // The store holds the silences its index finds against each alert
        // it screens, on its one writer: 64 regexes of 3,000 steps a character,
        // against a 1,024-character label, held every write behind them for
        // a second per alert. Together a silence's regexes may cost what one
        // regex of the largest size may.
        // One regex is taken as compiled; several must fit the limit together.
        let steps = regexSteps
        if matchers.filter({ $0.compiled != nil }).count > 1, steps > MatcherRegex.maxStepsPerCharacter {
            throw refuse("The regexes of this silence take \(steps) steps per character of a label together, "
                         + "more than the \(MatcherRegex.maxStepsPerCharacter) one silence may; use fewer or smaller regexes, "
                         + "or plain name=\"value\" matchers.")
        }
        for (what, text, limit) in [("createdBy", createdBy, 256), ("comment", comment, 4_096)]
            + matchers.map({ ("the value of matcher \($0.name)", $0.value, MatcherRegex.maxLength) })
        where text.unicodeScalars.count > limit {
            throw refuse("\(what) is \(text.unicodeScalars.count) characters long; at most \(limit) are taken.")
        }
        // Silences are printed on other people's terminals (alertctl, amtool):
        // the same text rules as an alert's, so none can carry an escape.
        let texts: [(String, String, TextPolicy.Kind)] = [("createdBy", createdBy, .line), ("comment", comment, .multiline)]
            + matchers.map { ("the value of matcher \($0.name)", $0.value, .line) }
        for (what, text, kind) in texts {
            if let refused = TextPolicy.firstRefused(in: text, kind) {
                throw refuse("\(what) contains \(refused); it must be \(kind == .multiline ? "plain text" : "one line of plain text"). "
                             + "Remove the character (terminal escapes and direction overrides change what a reader sees).")
            }
        }
        if endsAt <= startsAt { throw refuse("The silence ends at or before its start; give an end after the start.") }
        if endsAt <= now { throw refuse("The silence's end is in the past; give an end in the future.") }
    }

    package enum CodingKeys: String, CodingKey {
        case id, matchers, comment
        case startsAt = "starts_at"
        case endsAt = "ends_at"
        case createdBy = "created_by"
        case updatedAt = "updated_at"
    }
}

extension Sequence<Silence> {
    /// The silences that hold back an alert with these labels at `now`:
    /// active, and matching. What the store holds deliveries by and what
    /// the API shows as an alert's `silenced_by`.
    public func silencing(_ labels: [String: String], at now: Date) -> [Silence] {
        filter { $0.isActive(at: now) && $0.matches(labels) }
    }
}
