import AlertModel

extension Severity {
    /// The severity of an alert from Prometheus or Alertmanager, read from
    /// its `severity` label, case aside. Rule authors write many spellings;
    /// these are the ones alertd knows (docs/PROMETHEUS.md has the table).
    /// Anything else, or no label at all, is ``alertmanagerDefault``.
    package init(alertmanagerLabel value: String?) {
        switch value?.lowercased() {
        case "critical", "crit", "page", "emergency", "emerg", "alert", "fatal", "disaster", "p1": self = .critical
        case "error", "err", "high", "major", "p2": self = .error
        case "warning", "warn", "medium", "minor", "average", "p3": self = .warning
        case "info", "informational", "information", "notice", "low", "debug", "none", "ok", "p4", "p5": self = .info
        default: self = .alertmanagerDefault
        }
    }

    /// What an alert from Prometheus gets when its `severity` label is
    /// missing or unknown: something is firing, so more than `info`.
    package static let alertmanagerDefault = Severity.warning
}
