import AlertModel

/// What saving a silence came to.
public enum SilenceSaveOutcome: Sendable, Equatable {
    /// The silence as stored; its id is new unless it was changed in place.
    case saved(Silence)
    /// `replacing` named no silence.
    case notFound
    /// With it, one alert could be held against silence regexes of `steps`
    /// per character (``SilenceBudget``), past
    /// ``Silence/maxRegexStepsInForce``.
    case tooCostly(steps: Int)
}
