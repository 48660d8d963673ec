import AlertModel

/// What saving a silence came to.
public enum SilenceSaveOutcome: Sendable, Equatable {
    /// The silence as stored; its id is new unless it was changed in place.
    case saved(Silence)
    /// `replacing` named no silence.
    case notFound
    /// With it, the regexes of the silences in force or ahead would cost
    /// `steps` per character, past ``Silence/maxRegexStepsInForce``.
    case tooCostly(steps: Int)
}
