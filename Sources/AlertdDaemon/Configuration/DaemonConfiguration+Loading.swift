import FoundationEssentials
import AlertModel
import AlertdDelivery
import AlertdPOSIX
import AlertdStore

extension DaemonConfiguration {
    /// Reads and validates a config file. Every problem is reported at once.
    public static func load(from path: String, stateDirectory: String? = nil) throws(ConfigurationError) -> DaemonConfiguration {
        let (config, problems) = read(from: path, stateDirectory: stateDirectory)
        guard let config, problems.isEmpty else { throw ConfigurationError(source: path, problems: problems) }
        return config
    }

    /// The file's configuration with every problem found in it; the
    /// configuration is nil when the file cannot be read or is not a JSON
    /// object, and otherwise has what could not be read at its defaults.
    /// `--check-config` builds that one too, so the problems only a build
    /// finds (secret files, commands) come in the same run as a typo.
    package static func read(from path: String, stateDirectory: String? = nil) -> (DaemonConfiguration?, [String]) {
        // read(2), not FileManager: a start need not page in FileManager's
        // code (kept resident in an idle daemon) to read one file. Past the
        // limit it stops: a file of 1 GB (a log named by --config) was read
        // whole, 2.1 GB at the peak, at every reload.
        switch FileDescriptorReader.readFile(path, limit: largestFile) {
        case .success(let bytes):
            let (config, problems) = read(Data(bytes), stateDirectory: stateDirectory)
            // The file can name commands to run (`exec` presenters): one every
            // user may write hands them alertd's rights. A group that manages
            // it may write it; secret files are held to more.
            if case .success(let status) = FileStatus.of(path), status.isWritableByEveryone {
                return (config, ["the configuration file \(path) may be written by every user (mode \(status.octal)), who could make alertd run any command; run: chmod o-w \(path)"] + problems)
            }
            return (config, problems)
        case .failure(let failure):
            let why = switch failure {
            case .failed(let error): "\(error)"
            case .tooLarge: "it is larger than \(largestFile >> 20) MB"
            case .notRegularFile: "it is not a regular file (a directory, a FIFO or a device)"
            }
            return (nil, ["cannot read the configuration file: \(why) (check the path given to --config, and that the user alertd runs as may read it)"])
        }
    }

    /// The largest configuration file read: 16 MB, a hundred times a large one.
    package static let largestFile = 16 << 20

    /// Parses config JSON. Unknown keys are errors: a typo must not silently
    /// turn into a default.
    public static func parse(_ data: Data, source: String = "<config>", stateDirectory: String? = nil) throws(ConfigurationError) -> DaemonConfiguration {
        let (config, problems) = read(data, stateDirectory: stateDirectory)
        guard let config, problems.isEmpty else { throw ConfigurationError(source: source, problems: problems) }
        return config
    }

    /// ``read(from:stateDirectory:)`` of bytes.
    private static func read(_ data: Data, stateDirectory: String?) -> (DaemonConfiguration?, [String]) {
        let root: Any
        do { root = try StrictJSON.parse(data) } catch {
            return (nil, ["not valid JSON: \(error.description)"])
        }
        let r = JSONConfigReader()
        let top = r.object(root, at: "", allowed: [
            "state_dir", "api", "store", "presenters", "routes", "default_route", "retry", "templates", "limits", "dispatcher",
            "actions", "inhibit",
        ]) ?? [:]
        if root as? [String: Any] == nil { return (nil, r.problems) }

        // The default (the working directory's) only when nothing names one.
        var config = (stateDirectory ?? r.string(top, "state_dir", at: "")).map(DaemonConfiguration.init(stateDirectory:))
            ?? DaemonConfiguration()
        if let api = r.object(top["api"], at: "api", allowed: ["socket", "socket_mode", "listen", "token_file", "tokens_file", "threads", "public_url"]) {
            config.api.socketPath = r.string(api, "socket", at: "api")
            if let mode = r.string(api, "socket_mode", at: "api") {
                // Digits only: UInt16(_:radix:) also takes a sign ("+660").
                if mode.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }), let m = UInt16(mode, radix: 8), m <= 0o777 {
                    config.api.socketMode = m
                } else {
                    r.problem("api.socket_mode", "must be an octal mode such as \"0660\", got \"\(mode)\"")
                }
            }
            if let listen = r.string(api, "listen", at: "api") {
                if let problem = ListenAddress.portProblem(listen) {
                    r.problem("api.listen", problem)
                } else if ListenAddress(listen) == nil {
                    r.problem("api.listen", "must be host:port such as \"127.0.0.1:9190\", got \"\(listen)\"")
                }
                config.api.listen = listen
            }
            config.api.tokenFile = r.string(api, "token_file", at: "api")
            config.api.tokensFile = r.string(api, "tokens_file", at: "api")
            if let t = r.int(api, "threads", at: "api", range: 1...64) { config.api.threads = t }
            if let u = r.string(api, "public_url", at: "api") {
                if let c = URLComponents(string: u), ["http", "https"].contains(c.scheme?.lowercased() ?? ""), c.host?.isEmpty == false,
                   c.query == nil {
                    config.api.publicURL = u
                } else {
                    r.problem("api.public_url", "must be the http(s) base URL people reach the API at, e.g. \"https://alertd.example\"")
                }
            }
        }
        if let store = r.object(top["store"], at: "store", allowed: ["path", "retention", "url", "url_file", "node"]) {
            if let p = r.string(store, "path", at: "store") { config.store.path = p }
            config.store.url = r.string(store, "url", at: "store")
            config.store.urlFile = r.string(store, "url_file", at: "store")
            config.store.node = r.string(store, "node", at: "store")
            if let url = config.store.url, !StoreSection.isPostgresURL(url) {
                r.problem("store.url", "must be a PostgreSQL URL such as \"postgresql://alertd@db.example:5432/alertd\", got \"\(URLRedaction.redactingPassword(url))\"")
            } else if let url = config.store.url, let problem = StoreSection.urlProblem(url) {
                r.problem("store.url", problem)
            }
            if config.store.url != nil && config.store.urlFile != nil { r.problem("store", "give url or url_file, not both") }
            if config.store.isPostgres && store["path"] != nil { r.problem("store", "give path (SQLite) or url (PostgreSQL), not both") }
            if store["retention"] as? String == "forever" {
                config.store.retention = nil
            } else if let d = r.duration(store, "retention", at: "store", orWord: "forever") {
                config.store.retention = d
            }
        }
        if top["presenters"] != nil {
            config.presenters = parsePresenters(top["presenters"], r)
        }
        if let routes = top["routes"] {
            if let list = routes as? [Any] {
                config.routes = list.enumerated().compactMap { parseRoute($1, at: "routes[\($0)]", r, requirePresenters: true) }
            } else {
                r.problem("routes", "must be a list of routes")
            }
        }
        if let inhibit = top["inhibit"] {
            if let list = inhibit as? [Any] {
                config.inhibitRules = list.enumerated().compactMap { parseInhibitRule($1, at: "inhibit[\($0)]", r) }
            } else {
                r.problem("inhibit", "must be a list of inhibition rules")
            }
        }
        if top["default_route"] != nil {
            if let d = parseRoute(top["default_route"], at: "default_route", r, requirePresenters: false, matchers: false) {
                config.defaultRoute = d
            }
        } else if top["presenters"] != nil {
            // New presenters but no default route: send unmatched alerts to all of them.
            config.defaultRoute = RouteDefinition(presenters: config.presenters.map(\.name))
        }
        if let retry = r.object(top["retry"], at: "retry",
                                allowed: ["initial_delay", "factor", "max_delay", "jitter", "max_attempts", "max_age"]) {
            if let d = r.duration(retry, "initial_delay", at: "retry") { config.retry.initialDelay = d }
            if let f = r.double(retry, "factor", at: "retry", range: 1...10) { config.retry.factor = f }
            if let d = r.duration(retry, "max_delay", at: "retry") { config.retry.maxDelay = d }
            if let j = r.bool(retry, "jitter", at: "retry") { config.retry.jitter = j }
            if let n = r.int(retry, "max_attempts", at: "retry", range: 1...1_000_000) { config.retry.maxAttempts = n }
            if let d = r.duration(retry, "max_age", at: "retry") { config.retry.maxAge = d }
            if config.retry.maxDelay < config.retry.initialDelay {
                r.problem("retry.max_delay", "is shorter than retry.initial_delay")
            }
        }
        if let t = r.string(top, "templates", at: "") { config.templatesPath = t }
        if let limits = r.object(top["limits"], at: "limits",
                                 allowed: ["max_body_bytes", "max_batch", "max_labels", "max_title_length", "max_message_length"]) {
            if let n = r.int(limits, "max_body_bytes", at: "limits", range: 1_024...(64 << 20)) { config.limits.maxBodyBytes = n }
            if let n = r.int(limits, "max_batch", at: "limits", range: 1...10_000) { config.limits.maxBatch = n }
            if let n = r.int(limits, "max_labels", at: "limits", range: AlertSpecLimits.configurableLabels) { config.limits.alert.maxLabels = n }
            if let n = r.int(limits, "max_title_length", at: "limits", range: AlertSpecLimits.configurableTitleLength) { config.limits.alert.maxTitleLength = n }
            if let n = r.int(limits, "max_message_length", at: "limits", range: AlertSpecLimits.configurableMessageLength) { config.limits.alert.maxMessageLength = n }
        }
        if let a = r.object(top["actions"], at: "actions",
                            allowed: ["allow", "secret", "secret_file", "connect_timeout", "timeout", "max_concurrency", "link_lifetime"]) {
            if let list = r.strings(a, "allow", at: "actions") {
                config.actions.allow = list
                for p in config.actions.handlerPolicy.problems { r.problem("", p) }
            }
            config.actions.secret = r.string(a, "secret", at: "actions")
            config.actions.secretFile = r.string(a, "secret_file", at: "actions")
            if let s = config.actions.secret {
                do { _ = try StandardWebhookSigner(secret: s) } catch { r.problem("actions.secret", error.message) }
            }
            if config.actions.secret != nil && config.actions.secretFile != nil {
                r.problem("actions", "give secret or secret_file, not both")
            }
            if let d = r.duration(a, "connect_timeout", at: "actions") { config.actions.connectTimeout = d }
            if let d = r.duration(a, "timeout", at: "actions") { config.actions.timeout = d }
            if let n = r.int(a, "max_concurrency", at: "actions", range: 1...1_024) { config.actions.maxConcurrency = n }
            if let d = r.duration(a, "link_lifetime", at: "actions") { config.actions.linkLifetime = d }
        }
        if let d = r.object(top["dispatcher"], at: "dispatcher", allowed: ["shutdown_grace", "claim_lease"]) {
            if let g = r.duration(d, "shutdown_grace", at: "dispatcher", allowZero: true) { config.dispatcher.shutdownGrace = g }
            if let l = r.duration(d, "claim_lease", at: "dispatcher") { config.dispatcher.claimLease = l }
        }

        // A presenter whose type is unknown was declared all the same: its
        // routes are not also told it does not exist.
        let declared = Set(((top["presenters"] as? [String: Any])?.keys).map(Array.init) ?? [])
        for problem in config.crossCheck(declared: declared) { r.problem("", problem) }
        return (config, r.problems)
    }

    /// Checks that need the whole file: route targets exist (among
    /// `presenters` and the names in `declared`), names are unique.
    package func crossCheck(declared: Set<String> = []) -> [String] {
        var problems: [String] = []
        let names = Set(presenters.map(\.name)).union(declared)
        func check(_ route: RouteDefinition, at path: String) {
            for (i, name) in route.presenters.enumerated() where !names.contains(name) {
                let known = names.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
                problems.append("\(path).presenters[\(i)]: no presenter named \"\(name)\" (defined: \(known.isEmpty ? "none" : known))")
            }
        }
        for (i, route) in routes.enumerated() {
            check(route, at: "routes[\(i)]")
            for (j, name) in (route.escalation?.presenters ?? []).enumerated() where !names.contains(name) {
                problems.append("routes[\(i)].escalate.presenters[\(j)]: no presenter named \"\(name)\"")
            }
        }
        check(defaultRoute, at: "default_route")
        // A route's name keys its groups: two routes sharing one would share groups.
        var seen: [String: String] = [:]
        for (route, path) in zip(routes + [defaultRoute], routes.indices.map { "routes[\($0)]" } + ["default_route"]) {
            guard let name = route.name else { continue }
            if let first = seen[name] {
                problems.append("\(path).name: \"\(name)\" is already the name of \(first); route names must be unique")
            } else if name.hasPrefix("routes[") || name == "default_route" {
                problems.append("\(path).name: \"\(name)\" is how unnamed routes are called; choose another")
            } else {
                seen[name] = path
            }
        }
        return problems
    }

    private static func parsePresenters(_ value: Any?, _ r: JSONConfigReader) -> [PresenterDefinition] {
        guard let map = value as? [String: Any] else {
            r.problem("presenters", "must be an object mapping names to presenters")
            return []
        }
        return map.sorted { $0.key < $1.key }.compactMap { name, raw in
            PresenterRegistry.definition(named: name, from: raw, at: "presenters.\(name)", r)
        }
    }

    /// One `inhibit` entry: matchers in Alertmanager's text form, as
    /// `alertctl silence add` and amtool take them.
    private static func parseInhibitRule(_ value: Any?, at path: String, _ r: JSONConfigReader) -> InhibitRule? {
        guard let obj = r.object(value, at: path, allowed: ["source_matchers", "target_matchers", "equal"]) else { return nil }
        func matchers(_ key: String) -> [LabelMatcher] {
            guard obj[key] != nil else {
                r.problem(r.join(path, key), "is required, e.g. [\"alertname=\\\"NodeDown\\\"\"]")
                return []
            }
            let out = parseMatchers(obj, key, at: path, r) ?? []
            if (obj[key] as? [Any])?.isEmpty == true { r.problem(r.join(path, key), "needs at least one matcher") }
            return out
        }
        let source = matchers("source_matchers")
        let target = matchers("target_matchers")
        let equal = r.strings(obj, "equal", at: path) ?? []
        // A label missing on both sides counts as equal: a misspelt one would widen the rule unseen.
        for (i, name) in equal.enumerated() where !AlertSpec.isValidLabelName(name) {
            r.problem("\(r.join(path, "equal"))[\(i)]", "\"\(name)\" is not a label name (letters, digits and _, not starting with a digit)")
        }
        guard !source.isEmpty, !target.isEmpty else { return nil }
        return InhibitRule(sourceMatchers: source, targetMatchers: target, equal: equal)
    }

    /// A list of matchers in Alertmanager's text form (`team=~"db|web"`),
    /// as `alertctl silence add` and amtool take them; an entry may hold
    /// several, as Alertmanager allows (`{alertname="DiskFull", rack="7"}`).
    /// Nil when absent.
    private static func parseMatchers(_ obj: [String: Any], _ key: String, at path: String, _ r: JSONConfigReader) -> [LabelMatcher]? {
        guard obj[key] != nil, let list = r.strings(obj, key, at: path) else { return nil }
        var out: [LabelMatcher] = []
        for (i, text) in list.enumerated() {
            do { out += try LabelMatcher.list(parsing: text) } catch { r.problem("\(r.join(path, key))[\(i)]", error.message) }
        }
        return out
    }

    private static func parseRouteName(_ obj: [String: Any], at path: String, _ r: JSONConfigReader) -> String? {
        guard let name = r.string(obj, "name", at: path) else { return nil }
        // A name keys the route's groups and shows in messages: a short, plain word.
        let plain = name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) }
        guard !name.isEmpty, name.count <= 64, plain else {
            r.problem(path + ".name", "must be 1 to 64 letters, digits, '-', '_' or '.', got \"\(name)\"")
            return nil
        }
        return name
    }

    /// `group_by` and its timers. The timers mean nothing without `group_by`,
    /// so one given alone is a mistake worth saying so.
    private static func parseGrouping(_ obj: [String: Any], at path: String, _ r: JSONConfigReader) -> RouteGrouping? {
        let wait = r.duration(obj, "group_wait", at: path, allowZero: true)
        let interval = r.duration(obj, "group_interval", at: path)
        let repeatInterval = r.duration(obj, "repeat_interval", at: path)
        guard obj["group_by"] != nil else {
            for key in ["group_wait", "group_interval", "repeat_interval"] where obj[key] != nil {
                r.problem("\(path).\(key)", "has no effect without group_by; add \"group_by\" (label names, or [\"...\"] for every label) or remove it")
            }
            return nil
        }
        guard let names = r.strings(obj, "group_by", at: path) else { return nil }
        var by: [String]? = []
        if names.contains("...") {
            if names.count > 1 { r.problem(path + ".group_by", "\"...\" (every label) stands alone; remove the other names") }
            by = nil
        } else {
            for (i, name) in names.enumerated() {
                if !AlertSpec.isValidLabelName(name) {
                    r.problem("\(path).group_by[\(i)]", "\"\(name)\" is not a label name (letters, digits and _, not starting with a digit)")
                } else if names[..<i].contains(name) {
                    r.problem("\(path).group_by[\(i)]", "\"\(name)\" is listed twice")
                }
            }
            by = names
        }
        return RouteGrouping(by: by, wait: wait ?? AlertGroupSettings.defaultWait, interval: interval ?? AlertGroupSettings.defaultInterval,
                             repeatInterval: repeatInterval ?? AlertGroupSettings.defaultRepeatInterval)
    }

    private static func parseRoute(_ value: Any?, at path: String, _ r: JSONConfigReader,
                                   requirePresenters: Bool, matchers: Bool = true) -> RouteDefinition? {
        let grouping = ["name", "group_by", "group_wait", "group_interval", "repeat_interval"]
        let allowed = (matchers ? ["match", "presenters", "continue", "escalate"] : ["presenters"]) + grouping
        guard let obj = r.object(value, at: path, allowed: allowed) else {
            if value.map(StrictJSON.isNull) ?? true { r.problem(path, "must be an object") }
            return nil
        }
        guard let presenters = r.strings(obj, "presenters", at: path) else {
            if obj["presenters"] == nil { r.problem(path + ".presenters", "is required: the presenters this route delivers to") }
            return nil
        }
        if requirePresenters && presenters.isEmpty { r.problem(path + ".presenters", "must name at least one presenter") }
        var route = RouteDefinition(presenters: presenters)
        route.continueMatching = r.bool(obj, "continue", at: path) ?? false
        route.name = parseRouteName(obj, at: path, r)
        route.grouping = parseGrouping(obj, at: path, r)
        if let e = r.object(obj["escalate"], at: path + ".escalate", allowed: ["after", "presenters"]) {
            let after = r.duration(e, "after", at: path + ".escalate")
            let names = r.strings(e, "presenters", at: path + ".escalate") ?? []
            if after == nil, e["after"] == nil { r.problem(path + ".escalate.after", "is required, e.g. \"15m\"") }
            if names.isEmpty { r.problem(path + ".escalate.presenters", "must name at least one presenter") }
            if let after, !names.isEmpty { route.escalation = Escalation(after: after, presenters: names) }
        }
        if let match = r.object(obj["match"], at: path + ".match", allowed: ["labels", "matchers", "severity", "min_severity"]) {
            let mpath = path + ".match"
            route.labels = r.stringMap(match, "labels", at: mpath) ?? [:]
            route.matchers = parseMatchers(match, "matchers", at: mpath, r) ?? []
            // One severity given alone is the likely slip: a list of one was meant, or min_severity.
            let hint = if let one = (match["severity"] as? String).flatMap({ Severity(rawValue: $0.lowercased()) }) {
                "write [\"\(one.rawValue)\"], or \"min_severity\": \"\(one.rawValue)\" for \(one.rawValue) and above"
            } else {
                "write a list such as [\"warning\", \"critical\"], or \"min_severity\": \"warning\" for warning and above"
            }
            if let list = r.strings(match, "severity", at: mpath, hint: hint) {
                var set = Set<Severity>()
                for (i, s) in list.enumerated() {
                    if let sev = Severity(rawValue: s) { set.insert(sev) } else {
                        r.problem("\(mpath).severity[\(i)]", "unknown severity \"\(s)\"; one of \(Severity.spellings)")
                    }
                }
                // An empty list matches no alert: the route could never take one.
                if list.isEmpty { r.problem("\(mpath).severity", "lists no severity, so the route would match no alert; name at least one, or leave it out") }
                route.severities = set
            }
            if let s = r.string(match, "min_severity", at: mpath) {
                if let sev = Severity(rawValue: s) { route.minSeverity = sev } else {
                    r.problem(mpath + ".min_severity", "unknown severity \"\(s)\"; one of \(Severity.spellings)")
                }
            }
        }
        return route
    }
}

/// `host:port` for a TCP listener; IPv6 hosts in brackets (`[::1]:9190`).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: UInt16

    public init?(_ text: String) {
        guard let (host, port) = Self.parts(of: text), !host.isEmpty, let port = UInt16(port) else { return nil }
        self.host = String(host)
        self.port = port
    }

    /// Why `text`, host:port in form, is no listen address when the reason
    /// is its port: one past 65535 (`localhost:99999`); nil otherwise.
    public static func portProblem(_ text: String) -> String? {
        guard let (host, port) = parts(of: text), !host.isEmpty, !port.isEmpty, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber),
              UInt16(port) == nil else { return nil }
        return "port \(port) of \"\(text)\" is out of range; a port is at most 65535"
    }

    /// The host (IPv6 without its brackets) and the port text of `host:port`.
    private static func parts(of text: String) -> (host: Substring, port: Substring)? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            return (text[text.index(after: text.startIndex)..<close], text[text.index(close, offsetBy: 2)...])
        }
        guard let colon = text.lastIndex(of: ":") else { return nil }
        return (text[..<colon], text[text.index(after: colon)...])
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
