import FoundationEssentials

/// A named recipe for a kind of alert: the builder's director. It holds
/// defaults with `{placeholders}` and fills a builder's gaps with them, so a
/// cron job can say `--template disk_full --set host=db1` instead of spelling
/// out the whole alert every time.
public struct AlertTemplate: Sendable, Equatable {
    public var name: String
    public var title: String?
    public var message: String?
    public var severity: String?
    public var labels: [String: String]
    public var confirm: AlertAction?
    public var cancel: AlertAction?
    public var dedupKey: String?
    public var expiresAfter: String?

    public init(
        name: String, title: String? = nil, message: String? = nil, severity: String? = nil,
        labels: [String: String] = [:], confirm: AlertAction? = nil, cancel: AlertAction? = nil,
        dedupKey: String? = nil, expiresAfter: String? = nil
    ) {
        self.name = name
        self.title = title
        self.message = message
        self.severity = severity
        self.labels = labels
        self.confirm = confirm
        self.cancel = cancel
        self.dedupKey = dedupKey
        self.expiresAfter = expiresAfter
    }

    /// Every placeholder name the template uses, sorted.
    public var placeholders: [String] {
        var texts = [title, message, severity, dedupKey, expiresAfter].compactMap { $0 }
        texts += labels.values
        for action in [confirm, cancel].compactMap({ $0 }) { texts += [action.label, action.url] }
        return Array(Set(texts.flatMap(Self.placeholderNames(in:)))).sorted()
    }

    /// Fills the fields the builder does not have yet, substituting `values`
    /// into the placeholders. Fields already set on the builder win, so
    /// explicit options override the template. Placeholders without a value
    /// become one `missing_template_values` problem that names them all.
    public func fill(_ builder: AlertSpec.Builder, values: [String: String]) -> AlertSpec.Builder {
        func sub(_ text: String) -> String { Self.substitute(text, values: values) }
        let missing = placeholders(filling: builder).filter { values[$0] == nil }
        if !missing.isEmpty {
            var b = builder.problem(AlertSpecError(
                field: "template", code: .missingTemplateValues,
                message: "Template `\(name)` needs values for: \(missing.joined(separator: ", ")). Give each one as name=value (alertctl: --set \(missing[0])=…)."))
            // The template does supply a title; without this the build would also
            // report `missing_title`, which would send the person the wrong way.
            if !b.title.isGiven, let title { b = b.title(sub(title)) }
            return b
        }
        var b = builder
        if !b.title.isGiven, let title { b = b.title(sub(title)) }
        if !b.message.isGiven, let message { b = b.message(sub(message)) }
        if !b.severity.isGiven, let severity { b = b.severity(parsing: sub(severity), source: "template \(name): severity") }
        let given = Set(b.labels.map(\.name))
        for (k, v) in labels.sorted(by: { $0.key < $1.key }) where !given.contains(k) { b = b.label(k, sub(v)) }
        // In a URL a value is data, percent-encoded: `x&y=1#/../other` must
        // not add query parameters or move the handler's path. Values that
        // make a path segment empty, `.` or `..` (percent-encoding leaves
        // dots, and servers read `%2E` as `.`) would still move it: refused.
        func subURL(_ text: String) -> String { Self.substitute(text, values: values.mapValues(Self.percentEncoded)) }
        let filledURLs = [b.confirm.isGiven ? nil : confirm, b.cancel.isGiven ? nil : cancel].compactMap { $0?.url }
        let moving = filledURLs.filter { Self.emptyOrDotSegments(in: subURL($0)) > Self.emptyOrDotSegments(in: $0) }
        if !moving.isEmpty {
            let names = Set(moving.flatMap(Self.placeholderNames(in:))).filter { values[$0]?.allSatisfy { $0 == "." } ?? false }.sorted()
            b = b.problem(AlertSpecError(
                field: "template", code: .invalidTemplateValue,
                message: "Template `\(name)` puts \(names.map { "`\($0)`" }.joined(separator: ", ")) in a handler URL, where the values "
                    + "make a path segment empty, `.` or `..`, which would move the handler's path; give other values."))
        }
        if !b.confirm.isGiven, let confirm { b = b.confirm(sub(confirm.label), handler: subURL(confirm.url), method: confirm.method) }
        if !b.cancel.isGiven, let cancel { b = b.cancel(sub(cancel.label), handler: subURL(cancel.url), method: cancel.method) }
        if !b.dedupKey.isGiven, let dedupKey { b = b.dedupKey(sub(dedupKey)) }
        if !b.expiresAfter.isGiven, let expiresAfter { b = b.expires(parsing: sub(expiresAfter), source: "template \(name): expires_after") }
        return b
    }

    /// How many segments of `url`'s path are empty, `.` or `..` (`%2E`
    /// counting as a dot).
    static func emptyOrDotSegments(in url: String) -> Int {
        guard let authority = url.firstRange(of: "://") else { return 0 }
        let rest = url[authority.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return 0 }
        let path = rest[slash...].prefix { $0 != "?" && $0 != "#" }
        return path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().count { $0.isEmpty || DotSegment($0) != nil }
    }

    /// The placeholders of the fields `fill` would take for `builder`: a
    /// field the builder already has is not used, so its placeholders need
    /// no value (`--title` overriding a `{host}` title must not demand `host`).
    package func placeholders(filling builder: AlertSpec.Builder) -> [String] {
        var texts: [String?] = []
        if !builder.title.isGiven { texts.append(title) }
        if !builder.message.isGiven { texts.append(message) }
        if !builder.severity.isGiven { texts.append(severity) }
        let given = Set(builder.labels.map(\.name))
        texts += labels.filter { !given.contains($0.key) }.map(\.value)
        if !builder.confirm.isGiven { texts += [confirm?.label, confirm?.url] }
        if !builder.cancel.isGiven { texts += [cancel?.label, cancel?.url] }
        if !builder.dedupKey.isGiven { texts.append(dedupKey) }
        if !builder.expiresAfter.isGiven { texts.append(expiresAfter) }
        return Array(Set(texts.compactMap { $0 }.flatMap(Self.placeholderNames(in:)))).sorted()
    }

    package static func placeholderNames(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            let name = after[..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }) {
                names.append(String(name))
                rest = after[after.index(after: close)...]
            } else {
                rest = after
            }
        }
        return names
    }

    /// `value` with every byte but RFC 3986's unreserved ones
    /// (`A-Z a-z 0-9 - . _ ~`) written as `%XX`.
    package static func percentEncoded(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Replaces each `{name}` with its value in one pass, so a value that
    /// itself contains `{other}` is inserted as typed, never expanded again.
    package static func substitute(_ text: String, values: [String: String]) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let value = values[String(after[..<close])],
               !placeholderNames(in: "{" + after[...close]).isEmpty {
                out += value
                rest = after[after.index(after: close)...]
            } else {
                out += "{"
                rest = after
            }
        }
        return out + rest
    }
}
