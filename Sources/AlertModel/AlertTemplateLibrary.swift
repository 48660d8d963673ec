import FoundationEssentials

/// The templates an operator defined, loaded from a JSON file of the form
/// `{"templates": {"disk_full": {"title": "Disk full on {host}", ...}}}`.
public struct AlertTemplateLibrary: Sendable, Equatable {
    public private(set) var templates: [String: AlertTemplate]

    public init(_ templates: [AlertTemplate] = []) {
        self.templates = Dictionary(templates.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }

    public subscript(name: String) -> AlertTemplate? { templates[name] }

    /// Names in order, for help and error texts.
    public var names: [String] { templates.keys.sorted() }

    /// Every template's ``AlertTemplate/fixedProblems(limits:)``, as lines
    /// for a ``TemplateFileError``: `templates.disk.labels.env: …`.
    func problems(limits: AlertSpecLimits) -> [String] {
        names.flatMap { name in
            (templates[name]?.fixedProblems(limits: limits) ?? []).map { "templates.\(name).\($0.field): \($0.message)" }
        }
    }

    /// The largest template file read: 16 MB.
    public static let largestFile = 16 << 20

    /// Reads and checks a template file, and with `limits` (the daemon's)
    /// also what every use would break of them. Every problem is reported
    /// at once.
    public static func load(from path: String, limits: AlertSpecLimits? = nil) throws(TemplateFileError) -> AlertTemplateLibrary {
        // Read, a FIFO in the file's place held a reload (and SIGTERM behind
        // it) for good, and a file of 1 GB took as much again. What a link
        // points to is what counts: a ConfigMap's files are links.
        let attributes = try? FileManager.default.attributesOfItem(atPath: URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
        if let type = attributes?[.type] as? FileAttributeType, type != .typeRegular {
            throw TemplateFileError(path: path, problems: ["cannot read the template file: it is not a regular file (a directory, a FIFO or a device)"])
        }
        if let size = attributes?[.size] as? Int, size > largestFile {
            throw TemplateFileError(path: path, problems: ["cannot read the template file: it is larger than \(largestFile >> 20) MB"])
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            // From the error, not a second look: a file in a directory this
            // user may not enter looked like no file at all.
            let why = switch (error as? CocoaError)?.code {
            case .fileReadNoSuchFile?: "there is no such file"
            case .fileReadNoPermission?: "this user may not read it, or may not enter a directory on its path"
            default: FileManager.default.fileExists(atPath: path) ? "it is not a readable file" : "\(error)"
            }
            throw TemplateFileError(path: path, problems: ["cannot read the template file: \(why)"])
        }
        let library = try parse(data, path: path)
        if let limits {
            let problems = library.problems(limits: limits)
            guard problems.isEmpty else { throw TemplateFileError(path: path, problems: problems) }
        }
        return library
    }

    /// Parses template JSON; `path` is only used in messages.
    public static func parse(_ data: Data, path: String = "<templates>") throws(TemplateFileError) -> AlertTemplateLibrary {
        let root: Any
        do { root = try StrictJSON.parse(data) } catch {
            throw TemplateFileError(path: path, problems: ["not valid JSON: \(error.description)"])
        }
        guard let top = root as? [String: Any], let map = top["templates"] as? [String: Any], top.count == 1 else {
            throw TemplateFileError(path: path, problems: ["expected an object with one key, \"templates\", mapping names to templates"])
        }
        var problems: [String] = []
        var templates: [AlertTemplate] = []
        let stringFields = ["title", "message", "severity", "dedup_key", "expires_after"]
        for (name, raw) in map.sorted(by: { $0.key < $1.key }) {
            guard let obj = raw as? [String: Any] else { problems.append("templates.\(name): must be an object"); continue }
            var t = AlertTemplate(name: name)
            // `null` is the same as leaving the key out, as in the configuration file.
            for (key, value) in obj.sorted(by: { $0.key < $1.key }) where !(value is JSONNull) {
                let at = "templates.\(name).\(key)"
                if stringFields.contains(key) {
                    guard let s = value as? String else {
                        let example = key == "expires_after" ? ", e.g. \"30m\"" : ""
                        problems.append("\(at): must be a string\(example), not \(Self.kind(of: value))")
                        continue
                    }
                    // Fixed values are checked with the file, not at each use; one with
                    // placeholders can only be checked filled.
                    if AlertTemplate.placeholderNames(in: s).isEmpty {
                        if key == "severity", Severity(rawValue: s.lowercased()) == nil {
                            problems.append("\(at): `\(s)` is not a severity; use one of: \(Severity.spellings)")
                        } else if key == "expires_after", AlertDuration(parsing: s) == nil {
                            problems.append("\(at): `\(s)` is not a duration. \(AlertDuration.spellingHint)")
                        }
                    }
                    switch key {
                    case "title": t.title = s
                    case "message": t.message = s
                    case "severity": t.severity = s
                    case "dedup_key": t.dedupKey = s
                    default: t.expiresAfter = s
                    }
                } else if key == "labels" {
                    guard let object = value as? [String: Any] else {
                        problems.append("\(at): must be an object of strings, not \(Self.kind(of: value))")
                        continue
                    }
                    var l: [String: String] = [:]
                    // Names are used as written (only values are filled): one no
                    // alert may have would fail every use of the template.
                    for (name, labelValue) in object.sorted(by: { $0.key < $1.key }) {
                        if let problem = AlertSpec.labelNameProblem(name) {
                            let filled = name.contains("{") ? " Placeholders fill values, not names." : ""
                            problems.append("\(at).\(name): \(problem.message)\(filled)")
                        }
                        if let text = labelValue as? String {
                            l[name] = text
                        } else {
                            problems.append("\(at).\(name): must be a string, not \(Self.kind(of: labelValue))")
                        }
                    }
                    t.labels = l
                } else if key == "confirm" || key == "cancel" {
                    guard let object = value as? [String: Any] else {
                        problems.append("\(at): must be an object with label and url (and optionally method), not \(Self.kind(of: value))")
                        continue
                    }
                    let before = problems.count
                    var a: [String: String] = [:]
                    for (field, fieldValue) in object.sorted(by: { $0.key < $1.key }) where !(fieldValue is JSONNull) {
                        if !["label", "url", "method"].contains(field) {
                            problems.append("\(at).\(field): unknown field; an action has label, url and optionally method")
                        } else if let text = fieldValue as? String {
                            a[field] = text
                        } else {
                            problems.append("\(at).\(field): must be a string, not \(Self.kind(of: fieldValue))")
                        }
                    }
                    let missing = ["label", "url"].filter { object[$0] == nil || object[$0] is JSONNull }
                    if !missing.isEmpty {
                        problems.append("\(at): needs \(missing.joined(separator: " and ")): an action has label, url and optionally method")
                    }
                    guard problems.count == before, let label = a["label"], let url = a["url"] else { continue }
                    guard let method = HTTPMethodName(rawValue: (a["method"] ?? "POST").uppercased()) else {
                        problems.append("\(at).method: must be one of \(HTTPMethodName.allCases.map(\.rawValue).joined(separator: ", "))")
                        continue
                    }
                    let action = AlertAction(label: label, url: url, method: method)
                    if key == "confirm" { t.confirm = action } else { t.cancel = action }
                } else {
                    problems.append("\(at): unknown field; the fields are title, message, severity, labels, confirm, cancel, dedup_key, expires_after")
                }
            }
            templates.append(t)
        }
        guard problems.isEmpty else { throw TemplateFileError(path: path, problems: problems) }
        return AlertTemplateLibrary(templates)
    }

    /// What a JSON value of the wrong type is, for a problem's sentence.
    private static func kind(of value: Any) -> String {
        switch value {
        case is String: "a string"
        case is Bool: "true or false"
        case is Int, is Double: "a number"
        case is [Any]: "an array"
        case is [String: Any]: "an object"
        default: "null"
        }
    }
}

/// A template file that could not be used, with every reason.
public struct TemplateFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let problems: [String]

    public var description: String {
        problems.map { "\(path): \($0)" }.joined(separator: "\n")
    }
}
