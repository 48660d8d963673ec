import FoundationEssentials
import AlertModel
import AlertdCurl
import AlertdPOSIX

/// A secret in a presenter's settings: given inline (`"token": "…"`) or as
/// a file that holds it (`"token_file": "/etc/alertd/…"`), so the config
/// itself can stay world-readable. Files are read with ``SecretFile``, when
/// the presenter is made. A secret's value never reaches a log, a reason or
/// a preview: those show ``placeholder``.
public struct PresenterSecret: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case inline(String)
        case file(String)
    }

    /// The setting's name, `token` (its file form is `token_file`).
    public let key: String
    public let source: Source
    /// The secret is a service's URL (a chat webhook's), checked as an
    /// inline `url` is, when its file is read: at start and by
    /// `--check-config`, not at the first delivery.
    public var isURL = false
    /// The secret's length in characters, for a service whose keys all
    /// have one (PagerDuty's integration keys, 32): checked as a URL is,
    /// inline when read and a file's once read, not at the first delivery.
    public var length: Int?

    public init(key: String, source: Source, isURL: Bool = false, length: Int? = nil) {
        self.key = key
        self.source = source
        self.isURL = isURL
        self.length = length
    }

    /// ``read(_:from:at:_:required:need:)`` for a service URL (`url` or
    /// `url_file`): an inline one is checked now, a file's once read.
    public static func readURL(
        _ key: String, from object: [String: Any], at path: String, _ reader: JSONConfigReader, required: Bool, need: String = ""
    ) -> PresenterSecret? {
        guard var secret = read(key, from: object, at: path, reader, required: required, need: need) else { return nil }
        if case .inline(let text) = secret.source { _ = reader.checkedURL(text, at: reader.join(path, key)) }
        secret.isURL = true
        return secret
    }

    /// ``read(_:from:at:_:required:need:)`` for a key of `length`
    /// characters: an inline one is checked now, a file's once read.
    public static func readKey(
        _ key: String, length: Int, from object: [String: Any], at path: String, _ reader: JSONConfigReader, required: Bool, need: String = ""
    ) -> PresenterSecret? {
        guard var secret = read(key, from: object, at: path, reader, required: required, need: need) else { return nil }
        secret.length = length
        if case .inline(let text) = secret.source, !text.isEmpty, let wrong = secret.wrongLength(text) {
            reader.problem(reader.join(path, key), "must be \(length) characters long, got \(wrong)")
        }
        return secret
    }

    /// The length of `value` in bytes when it is not ``length``; the value
    /// itself is never said. Such keys are ASCII: counted in characters, 32
    /// `Ä` passed.
    private func wrongLength(_ value: String) -> Int? {
        guard let length, value.utf8.count != length else { return nil }
        return value.utf8.count
    }

    /// `key` and `key_file`, for a type's list of keys.
    public static func keys(_ key: String) -> [String] { [key, key + "_file"] }

    /// Reads `key` or `key_file`. Both is a problem, and so is neither when
    /// `required`; `need` finishes the sentence: "is required: <need>".
    public static func read(
        _ key: String, from object: [String: Any], at path: String, _ reader: JSONConfigReader, required: Bool, need: String = ""
    ) -> PresenterSecret? {
        let inline = reader.string(object, key, at: path)
        let file = reader.string(object, key + "_file", at: path)
        switch (inline, file) {
        case (let value?, nil):
            if value.isEmpty { reader.problem(reader.join(path, key), "must not be empty") }
            return PresenterSecret(key: key, source: .inline(value))
        case (nil, let file?):
            if file.isEmpty { reader.problem(reader.join(path, key + "_file"), "must not be empty") }
            return PresenterSecret(key: key, source: .file(file))
        case (_?, _?):
            reader.problem(path, "give \(key) or \(key)_file, not both")
            return nil
        case (nil, nil):
            if required && object[key] == nil && object[key + "_file"] == nil {
                reader.problem(reader.join(path, key), "is required (or \(key)_file)" + (need.isEmpty ? "" : ": \(need)"))
            }
            return nil
        }
    }

    /// The secret itself: the inline text, or the file's content read now
    /// (relative paths from the state directory).
    public func value(in context: PresenterContext) throws(PresenterSetupError) -> String {
        switch source {
        case .inline(let value):
            return value
        case .file(let path):
            let value: String
            do { value = try SecretFile.read(context.resolve(path)) } catch { throw PresenterSetupError(error.message) }
            if isURL, !JSONConfigReader.isURL(value) {
                // The content is not echoed: it is a credential.
                throw PresenterSetupError("\(key)_file \(path) does not hold an http:// or https:// URL with a host")
            }
            if let length, let wrong = wrongLength(value) {
                throw PresenterSetupError("\(key)_file \(path) must hold \(length) characters, got \(wrong)")
            }
            return value
        }
    }

    /// What stands in for the secret where a person reads: `<token>`,
    /// `<token from /etc/alertd/token>`; a URL keeps its origin
    /// (`https://hooks.slack.com/<url>`), so a preview still says where it goes.
    public var placeholder: String {
        switch source {
        case .inline(let value) where value.contains("://"):
            return URLRedaction.origin(value) + "/<\(key)>"
        case .inline:
            return "<\(key)>"
        case .file(let path):
            return "<\(key) from \(path)>"
        }
    }
}

/// A type's secrets by key, read for real when its presenter is made, or
/// placeholders for a preview.
public struct PresenterSecrets: Sendable, Equatable {
    private var values: [String: String]

    public init(_ values: [String: String] = [:]) { self.values = values }

    /// Reads each secret (files now).
    public init(reading secrets: [PresenterSecret], in context: PresenterContext) throws(PresenterSetupError) {
        var values: [String: String] = [:]
        for secret in secrets { values[secret.key] = try secret.value(in: context) }
        self.values = values
    }

    /// Each secret's placeholder in its place.
    public static func placeholders(_ secrets: [PresenterSecret]) -> PresenterSecrets {
        PresenterSecrets(Dictionary(secrets.map { ($0.key, $0.placeholder) }, uniquingKeysWith: { a, _ in a }))
    }

    public subscript(key: String) -> String? { values[key] }

    /// These secrets and the password in `url`'s user info, if it has one:
    /// curl sends it as Basic credentials, which a service may echo.
    public func including(passwordOf url: String) -> PresenterSecrets {
        guard let password = URLRedaction.password(in: url) else { return self }
        var more = values
        more["url.password"] = password
        more["url.password.decoded"] = PercentDecoding.decoded(password) ?? password
        return PresenterSecrets(more)
    }

    /// `text` with each secret's value in it replaced by `***`: a service
    /// may quote a token it refused (`invalid_auth xoxb-…`, Matrix's
    /// "Invalid access token passed: syt_…"), and its words are shown in
    /// `last_error`, events and the log.
    public func hidden(in text: String) -> String {
        // A Telegram token is `<bot id>:<secret>`: its secret part may be quoted alone.
        let parts = values.values.flatMap { [$0] + $0.split(separator: ":").dropFirst().map(String.init) }
        // Longest first: one secret may hold another. Eight characters at
        // least for a part, four for a whole secret: shorter ones would
        // blank out ordinary words, and are no secret.
        let hidden = Set(parts).filter { $0.count >= (values.values.contains($0) ? 4 : 8) }.sorted { $0.count > $1.count }
        return hidingEncoded(hidden, in: hidden.reduce(text) { $0.replacing($1, with: "***") })
    }

    /// `text` with each run of base64 that decodes to text holding one of
    /// `secrets` replaced by `***`: a service or proxy that echoes the
    /// request's `Authorization: Basic …` quotes `user:password` encoded.
    private func hidingEncoded(_ secrets: [String], in text: String) -> String {
        guard !secrets.isEmpty else { return text }
        var out = "", run = ""
        func endRun() {
            // 8 characters encode 6 bytes: less could hold no secret worth the name.
            if run.count >= 8, let bytes = Self.decodedBase64(run), secrets.contains(where: { String(decoding: bytes, as: UTF8.self).contains($0) }) {
                out += "***"
            } else {
                out += run
            }
            run = ""
        }
        for c in text {
            if c.isASCII, c.isLetter || c.isNumber || c == "+" || c == "/" || c == "-" || c == "_" || c == "=" {
                run.append(c)
            } else {
                endRun()
                out.append(c)
            }
        }
        endRun()
        return out
    }

    /// `text` as standard or URL-safe base64, padded or not; nil if it is neither.
    private static func decodedBase64(_ text: String) -> Data? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.last == "=" { standard.removeLast() }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
