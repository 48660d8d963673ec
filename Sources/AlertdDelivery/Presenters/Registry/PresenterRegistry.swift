import AlertModel

/// Every presenter type alertd knows, by the `type` that names it in the
/// configuration. Adding a type is adding its line here.
public enum PresenterRegistry {
    /// The types a release build has, in the order help and docs list them.
    public static let documentedTypes: [any PresenterConfiguration.Type] = [
        TerminalPresenterConfiguration.self,
        LogPresenterConfiguration.self,
        WebhookPresenterConfiguration.self,
        SlackPresenterConfiguration.self,
        NtfyPresenterConfiguration.self,
        EmailPresenterConfiguration.self,
        DiscordPresenterConfiguration.self,
        TelegramPresenterConfiguration.self,
        TeamsPresenterConfiguration.self,
        MatrixPresenterConfiguration.self,
        GotifyPresenterConfiguration.self,
        PushoverPresenterConfiguration.self,
        PagerDutyPresenterConfiguration.self,
        ExecPresenterConfiguration.self,
    ]

    /// Every type this build has: debug builds add the presenter mock.
    public static let types: [any PresenterConfiguration.Type] = {
        var types = documentedTypes
        #if ALERTD_TEST_HOOKS
        types.append(TestPresenter.Configuration.self)
        #endif
        return types
    }()

    /// The type named `name`, if there is one.
    public static func type(named name: String) -> (any PresenterConfiguration.Type)? {
        types.first { $0.typeName == name }
    }

    /// The type names, for messages.
    public static var typeNames: [String] { types.map { $0.typeName } }

    /// Reads one presenter's definition from its configuration object,
    /// reporting every problem to `reader`; nil when its type is unknown.
    public static func definition(named name: String, from raw: Any, at path: String, _ reader: JSONConfigReader) -> PresenterDefinition? {
        if name.isEmpty || !name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            reader.problem(path, "presenter names use letters, digits, - and _")
        }
        let known = typeNames.joined(separator: ", ")
        guard let typeName = (raw as? [String: Any])?["type"] as? String else {
            reader.problem(path + ".type", "is required: one of \(known)")
            return nil
        }
        guard let type = type(named: typeName) else {
            let suggestion = typeName.closest(in: typeNames).map { " (did you mean \"\($0)\"?)" } ?? ""
            reader.problem(path + ".type", "unknown presenter type \"\(typeName)\"\(suggestion); one of \(known)")
            return nil
        }
        guard let object = reader.object(raw, at: path, allowed: ["type", "max_concurrency", "follow_ups", "rate", "burst"] + type.keys) else { return nil }
        let concurrency = reader.int(object, "max_concurrency", at: path, range: PresenterDefinition.maxConcurrencyRange)
        let followUps = reader.bool(object, "follow_ups", at: path)
        if followUps == true && type.followUps == .unsupported {
            reader.problem(reader.join(path, "follow_ups"), "\(typeName) presenters send no follow-ups; remove the key")
        }
        // Kept even with problems in its settings, so routes naming it are
        // not also told it does not exist; the problems fail the load.
        return PresenterDefinition(name: name, configuration: type.init(reading: object, at: path, reader), maxConcurrency: concurrency,
                                   followUps: followUps, rateLimit: RateLimit.read(object, at: path, reader))
    }
}
