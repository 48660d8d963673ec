extension DaemonConfiguration {
    /// What a reload from `old` to this configuration changes, for the
    /// reload's log line: presenters added, removed and changed, by name,
    /// then every other section that differs, by its key. Empty when the
    /// file says what it said (token files are read again all the same).
    /// Before, a reload said only that it had happened, and an operator
    /// could not tell whether the edit they meant had been read.
    public func changes(from old: DaemonConfiguration) -> [String] {
        var changes: [String] = []
        let before = Dictionary(old.presenters.map { ($0.name, $0) }) { first, _ in first }
        let after = Dictionary(presenters.map { ($0.name, $0) }) { first, _ in first }
        let named: [(String, [String])] = [
            ("presenters added", after.keys.filter { before[$0] == nil }.sorted()),
            ("presenters removed", before.keys.filter { after[$0] == nil }.sorted()),
            ("presenters changed", after.keys.filter { name in before[name].map { $0 != after[name] } ?? false }.sorted()),
        ]
        for (what, names) in named where !names.isEmpty { changes.append("\(what): \(names.joined(separator: ", "))") }
        let sections: [(String, Bool)] = [
            ("routes", routes != old.routes), ("default_route", defaultRoute != old.defaultRoute),
            ("inhibit", inhibitRules != old.inhibitRules), ("retry", retry != old.retry),
            ("templates", templatesPath != old.templatesPath), ("limits", limits != old.limits),
            ("dispatcher", dispatcher != old.dispatcher), ("actions", actions != old.actions),
            ("api", api != old.api), ("store", store != old.store), ("state_dir", stateDirectory != old.stateDirectory),
        ]
        let differing = sections.filter(\.1).map(\.0)
        if !differing.isEmpty { changes.append(differing.joined(separator: ", ")) }
        return changes
    }
}
