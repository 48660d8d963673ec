import FoundationEssentials
import AlertModel
import AlertdCommandLine

/// The options every command that composes an alert shares (`validate`,
/// `render`, later `send`), and how they become an ``AlertSpec/Builder``.
///
/// Raw strings go through the builder's `parsing:` setters with the option
/// name as the source, so errors quote what was typed ("`--expires` is not
/// a duration: `30x`"). A `--template` fills only the fields the options
/// left empty.
public struct AlertCompositionOptions: Sendable, Equatable {
    /// The options to add to a command's configuration.
    public static let options: [CommandOption] = [
        .value("title", short: "t", help: "The headline: what happened, in a few words."),
        .value("message", short: "m", help: "Details; may span lines. '-' reads them from standard input."),
        .value("severity", short: "s", help: "How urgent: \(Severity.spellings). Defaults to info.",
               suggestedValues: Severity.allCases.map(\.rawValue)),
        .repeatable("label", short: "l", valueName: "name=value", help: "A label to route and group on; repeat for more."),
        .value("confirm", valueName: "label=url", help: "The confirm action: its button label and the http(s) handler to call."),
        .value("cancel", valueName: "label=url", help: "The cancel action, as for --confirm; also called when the alert expires."),
        .value("dedup-key", valueName: "key", help: "While an alert with this key is open, fold new ones into it."),
        .value("expires", valueName: "duration", help: "Expire the alert after this long, e.g. 90s, 30m, 1h30m, 2d; at most 30d."),
        .value("template", valueName: "name", help: "Start from this template; the other options override its fields."),
        .repeatable("set", valueName: "name=value", help: "A value for a placeholder of the template; repeat for more."),
        .value("templates", valueName: "file", help: "The template file; defaults to $ALERTD_TEMPLATES."),
    ]

    public var title: String?
    /// `-` means standard input.
    public var message: String?
    public var severity: String?
    /// Raw `name=value` words, in order.
    public var labels: [String]
    public var confirm: String?
    public var cancel: String?
    public var dedupKey: String?
    public var expires: String?
    public var template: String?
    public var templateValues: [String: String]
    public var templatesFile: String?

    public init(
        title: String? = nil, message: String? = nil, severity: String? = nil, labels: [String] = [],
        confirm: String? = nil, cancel: String? = nil, dedupKey: String? = nil, expires: String? = nil,
        template: String? = nil, templateValues: [String: String] = [:], templatesFile: String? = nil
    ) {
        self.title = title
        self.message = message
        self.severity = severity
        self.labels = labels
        self.confirm = confirm
        self.cancel = cancel
        self.dedupKey = dedupKey
        self.expires = expires
        self.template = template
        self.templateValues = templateValues
        self.templatesFile = templatesFile
    }

    /// Reads the options from a command that declared ``options``. Only the
    /// shape of `--set` is checked here; everything else is the builder's job.
    public init(parsed: ParsedCommand) throws(CommandLineError) {
        self.init(
            title: parsed.value("title"), message: parsed.value("message"), severity: parsed.value("severity"),
            labels: parsed.values("label"), confirm: parsed.value("confirm"), cancel: parsed.value("cancel"),
            dedupKey: parsed.value("dedup-key"), expires: parsed.value("expires"),
            template: parsed.value("template"), templatesFile: parsed.value("templates"))
        let setOption = parsed.configuration.option(named: "set")!
        for raw in parsed.values("set") {
            guard let eq = raw.firstIndex(of: "="), eq != raw.startIndex else {
                throw .invalidValue(raw, for: setOption, expected: "use the form name=value, e.g. host=db1.")
            }
            let name = String(raw[..<eq])
            // Given twice, one would silently lose: as with a label given twice, say so.
            guard templateValues.updateValue(String(raw[raw.index(after: eq)...]), forKey: name) == nil else {
                throw .invalidValue(raw, for: setOption, expected: "'\(name)' is already set; give each placeholder once.")
            }
        }
        if !templateValues.isEmpty, template == nil {
            throw .invalidCombination("'--set' fills a template's placeholders; name the template with '--template <name>'.")
        }
    }

    /// The builder these options describe. Problems (an unreadable template
    /// file, an unknown template, unreadable stdin) are recorded in it, so
    /// `build()` reports them along with everything else.
    public func builder(context: CommandContext) -> AlertSpec.Builder {
        var b = AlertSpec.Builder()
        if let title { b = b.title(title) }
        if let message {
            if message == "-" {
                let input = context.readInput()
                if let data = input, data.count > CommandContext.inputLimit {
                    // Only the first of it was read; its length is not known.
                    b.message = .invalid(AlertSpecError(
                        field: "message", code: .messageTooLong,
                        message: "Standard input holds over \(CommandContext.inputLimit >> 20) MiB, more than a message may be; link to the details instead of piping them in."))
                } else if let data = input, var text = String(validating: data, as: UTF8.self) {
                    // `echo` and heredocs end with a newline nobody means as part of the message.
                    while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
                    b = b.message(text)
                } else if input != nil {
                    // Decoded anyway, its bytes would go out as U+FFFD without a word.
                    b.message = .invalid(AlertSpecError(
                        field: "message", code: .notUTF8,
                        message: "Standard input is not UTF-8 text; convert it first (e.g. iconv -f LATIN1 -t UTF-8)."))
                } else {
                    b.message = .invalid(AlertSpecError(
                        field: "message", code: .invalidType,
                        message: "`--message -` could not read standard input; pipe the message in or give it as text."))
                }
            } else {
                b = b.message(message)
            }
        }
        if let severity { b = b.severity(parsing: severity, source: "--severity") }
        for label in labels { b = b.label(parsing: label, source: "--label") }
        if let confirm { b = b.confirm(parsing: confirm, source: "--confirm") }
        if let cancel { b = b.cancel(parsing: cancel, source: "--cancel") }
        if let dedupKey { b = b.dedupKey(dedupKey) }
        if let expires { b = b.expires(parsing: expires, source: "--expires") }
        return applyTemplate(to: b, environment: context.environment)
    }

    /// Builds and validates the alert.
    public func build(context: CommandContext, limits: AlertSpecLimits = .default) -> Result<AlertSpec, AlertSpecErrors> {
        builder(context: context).build(limits: limits)
    }

    private func applyTemplate(to builder: AlertSpec.Builder, environment: [String: String]) -> AlertSpec.Builder {
        guard let name = template else { return builder }
        guard let path = templatesFile ?? environment["ALERTD_TEMPLATES"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            return builder.problem(AlertSpecError(
                field: "template", code: .unknownTemplate,
                message: "`--template \(name)` needs a template file: give `--templates FILE` or set ALERTD_TEMPLATES."))
        }
        let library: AlertTemplateLibrary
        do {
            library = try AlertTemplateLibrary.load(from: path)
        } catch {
            return error.problems.reduce(builder) { b, problem in
                b.problem(AlertSpecError(field: "templates", code: .invalidTemplateFile, message: "\(path): \(problem)"))
            }
        }
        guard let template = library[name] else {
            let available = library.names.isEmpty ? "it defines none" : "the templates are: \(library.names.joined(separator: ", "))"
            return builder.problem(AlertSpecError(
                field: "template", code: .unknownTemplate,
                message: "There is no template `\(name)` in \(path); \(available)."))
        }
        return template.fill(builder, values: templateValues)
    }
}
