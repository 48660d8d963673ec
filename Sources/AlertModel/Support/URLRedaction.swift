/// Takes credentials out of URLs before they are written anywhere a person
/// or a log collector reads: error messages, `last_error`, the daemon log.
/// Handler and webhook URLs may carry `user:password@`, a database URL a
/// password, and those must not outlive the connection that needed them.
public enum URLRedaction {
    /// `url` with any user info in its authority replaced by `***`:
    /// `https://ops:s3cret@ops.example/x` becomes `https://***@ops.example/x`.
    /// Works on text that is not a valid URL too, since malformed URLs are
    /// exactly the ones that end up in error messages.
    public static func redactingUserInfo(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let authorityStart = schemeEnd.upperBound
        // The authority ends at the first of `/`, `?` or `#`; user info is
        // everything in it before the last `@` (a password may contain `@`
        // only percent-encoded, but a sloppy one is cut off all the same).
        let rest = url[authorityStart...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        guard let at = url[authorityStart..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<authorityStart]) + "***" + String(url[at...])
    }

    /// A handler URL as everyone but its call sees it: without user info,
    /// its query's values `***` (``redactingQueryValues(_:)``).
    public static func shownHandlerURL(_ url: String) -> String {
        redactingQueryValues(redactingUserInfo(url))
    }

    /// `url` with the value of each query parameter replaced by `***`, names
    /// kept (a parameter without `=` is all value): `https://ci.example/go?job=7&sig=abc`
    /// becomes `https://ci.example/go?job=***&sig=***`. The fragment stays.
    public static func redactingQueryValues(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let fragment = url[question...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: question)..<fragment]
        guard !query.isEmpty else { return url }
        let hidden = query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return pair.isEmpty ? "" : "***" }
            return pair[..<equals] + "=***"
        }
        return url[...question] + hidden.joined(separator: "&") + url[fragment...]
    }

    /// Text meant as a URL and refused, quoted in the error that says so:
    /// all before its last `@` (after `scheme://`, if any) replaced by
    /// `***`. A password with `/`, `?` or `#` in it, not encoded, ends the
    /// authority ``redactingUserInfo(_:)`` looks in before its `@`.
    public static func redactingAllBeforeTheLastAt(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let start = text.firstRange(of: "://")?.upperBound ?? text.startIndex
        guard start <= at else { return text }
        return String(text[..<start]) + "***" + String(text[at...])
    }

    /// Only `scheme://host[:port]` of `url`, for services whose URL path or
    /// query is itself a credential (a chat webhook's token, a bot token):
    /// `https://hooks.slack.com/services/T0/B0/XXXX` becomes
    /// `https://hooks.slack.com`. Text that is no URL becomes `the configured URL`.
    public static func origin(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return "the configured URL" }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        var authority = url[schemeEnd.upperBound..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return String(url[..<schemeEnd.upperBound]) + authority
    }

    /// `text` (what a service answered) with the parts of `url` after its
    /// origin taken out: the whole path and query, then each query part and
    /// path segment of six characters or more, as sent and decoded. A chat
    /// service's URL path is its credential (a webhook key, a bot token),
    /// and an error page or a proxy may quote the path it was asked for.
    /// With `onlyKeyLikeSegments`, for a service's API whose path words are
    /// its own, a segment is hidden only if it could be a key (six or more
    /// with a digit, or sixteen or more): a plain word (`message`,
    /// `sendMessage`) is none, and hiding it hid what the service said was
    /// wrong (Gotify's "Field 'message' is required").
    public static func hidingPathAndQuery(of url: String, in text: String, onlyKeyLikeSegments: Bool = false) -> String {
        let origin = origin(url)
        // The origin leaves user info out: past it, what follows the host.
        let host = origin.firstRange(of: "://").map { String(origin[$0.upperBound...]) } ?? origin
        let rest: String
        if url.hasPrefix(origin) {
            rest = String(url.dropFirst(origin.count))
        } else if let afterUser = url.firstRange(of: "@" + host) {
            rest = String(url[afterUser.upperBound...])
        } else {
            return text
        }
        guard !rest.isEmpty else { return text }
        let path = String(rest.prefix { $0 != "?" && $0 != "#" })
        var secrets = [rest, path]
        // Each part also decoded and fully encoded; and a Telegram segment,
        // `bot` and the token, also without `bot`, as the token is written
        // elsewhere.
        func add(_ part: String, if isSecret: (String) -> Bool) {
            var decoded = percentDecoded(part)
            guard isSecret(decoded) else { return }
            secrets += [part, decoded, AlertTemplate.percentEncoded(decoded)]
            if decoded.hasPrefix("bot") {
                decoded.removeFirst(3)
                secrets += [decoded, AlertTemplate.percentEncoded(decoded)]
            }
        }
        for segment in path.split(separator: "/") {
            add(String(segment)) { !onlyKeyLikeSegments || $0.count >= 16 || $0.contains(where: \.isNumber) }
        }
        for part in rest.dropFirst(path.count).split(whereSeparator: { "?#&=".contains($0) }) {
            add(String(part)) { _ in true }
        }
        var out = text
        // In any case: a receiver may quote a path lowercased, or its percent-escapes in lowercase hex.
        for secret in Set(secrets).filter({ $0.count >= 6 }).sorted(by: { $0.count > $1.count }) {
            out = out.replacing(Regex<Substring>(verbatim: secret).ignoresCase(), with: "***")
        }
        return out
    }

    /// ``origin(_:)`` for text that did not parse as a URL: whatever comes
    /// before the last `@` is left out, since in such text a password may
    /// hold the `/`, `?` or `#` that would otherwise end the authority.
    /// It may misname the host; it never shows user info.
    public static func originOfUnparsed(_ text: String) -> String {
        guard let schemeEnd = text.firstRange(of: "://") else { return "the configured URL" }
        var rest = text[schemeEnd.upperBound...]
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return String(text[..<schemeEnd.upperBound]) + rest[..<end]
    }

    /// `url` with its password replaced by `***`, so a log still says which
    /// user connects where: `postgresql://alertd:s3cret@db/alerts` becomes
    /// `postgresql://alertd:***@db/alerts`. Query parameters (libpq reads
    /// its settings there, a password among them) keep their values only
    /// when libpq's name for them is one of ``plainParameters``; any other
    /// is hidden the same way, whatever its spelling: `%70assword`
    /// (which libpq decodes), `sslpassword`, or a misspelt `passwd`.
    public static func redactingPassword(_ url: String) -> String {
        var out = url
        if let password = passwordRange(in: out) {
            out = String(out[..<password.lowerBound]) + "***" + String(out[password.upperBound...])
        }
        guard let query = out.firstIndex(of: "?") else { return out }
        let parameters = out[out.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { p in
            guard let equals = p.firstIndex(of: "="), !isPlainParameter(p[..<equals]) else { return String(p) }
            return p[...equals] + "***"
        }
        return String(out[...query]) + parameters.joined(separator: "&")
    }

    /// `text` (a message about `url`, such as libpq's when it cannot read
    /// the URL or log in) with `url`'s secrets taken out, its password and
    /// the values of its query parameters but ``plainParameters``: as
    /// written, percent-decoded, and each piece between `@`, `/`, `?`, `#`
    /// and `:` of three characters or more, since a parser that misreads
    /// the URL quotes the piece it took for a host or a user name.
    public static func hidingPassword(of url: String, in text: String) -> String {
        var secrets: [String] = []
        if let range = passwordRange(in: url) { secrets.append(String(url[range])) }
        if let query = url.firstIndex(of: "?") {
            for p in url[url.index(after: query)...].split(separator: "&") {
                guard let equals = p.firstIndex(of: "="), !isPlainParameter(p[..<equals]) else { continue }
                secrets.append(String(p[p.index(after: equals)...]))
            }
        }
        for secret in secrets {
            secrets.append(percentDecoded(secret))
            secrets += secret.split(whereSeparator: { "@/?#:".contains($0) }).map(String.init)
        }
        var out = text
        // Longest first, so a piece never leaves the rest of its password showing.
        for secret in Set(secrets).filter({ $0.count >= 3 }).sorted(by: { $0.count > $1.count }) {
            out = out.replacing(secret, with: "***")
        }
        return out
    }

    /// libpq's connection parameters whose values are no secret, and say
    /// where and how a connection goes (its documentation's "Parameter Key
    /// Words"); file names are paths, not keys.
    public static let plainParameters: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "passfile", "connect_timeout", "client_encoding",
        "application_name", "fallback_application_name", "keepalives", "keepalives_idle", "keepalives_interval",
        "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode", "requiressl", "sslcompression",
        "sslcert", "sslkey", "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
        "ssl_max_protocol_version", "krbsrvname", "gsslib", "service", "target_session_attrs", "load_balance_hosts",
        "channel_binding", "require_auth",
    ]

    /// Whether the query parameter named `key` (percent-encoded, as written)
    /// is one of ``plainParameters``.
    private static func isPlainParameter(_ key: Substring) -> Bool {
        plainParameters.contains(percentDecoded(String(key)).lowercased())
    }

    /// The password in `url`'s user info, as written; nil when it has none.
    public static func password(in url: String) -> String? {
        passwordRange(in: url).map { String(url[$0]) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether `url`'s password holds a bare `/`. libpq ends the host part
    /// at the first `/`, so it would take what comes before as host and port
    /// (and quote it in its errors); such a URL never connects.
    public static func passwordHasBareSlash(_ url: String) -> Bool {
        passwordRange(in: url).map { url[$0].contains("/") } ?? false
    }

    /// Where the password in `url`'s user info lies: after the first `:` of
    /// what comes before the last `@`. Wider than RFC 3986's authority on
    /// purpose: libpq takes a password with a bare `#`, `?` or `/` in it,
    /// and such a password must not be shown because the URL is not strict.
    private static func passwordRange(in url: String) -> Range<String.Index>? {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        guard let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return nil }
        return rest.index(after: colon)..<at
    }

    /// `%XX` escapes decoded; text that is not valid UTF-8 afterwards is kept as it was.
    private static func percentDecoded(_ s: String) -> String {
        PercentDecoding.decoded(s) ?? s
    }
}
