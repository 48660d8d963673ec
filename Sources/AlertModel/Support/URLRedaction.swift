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

    /// `url` with its password, and only that, replaced by `***`, so a log
    /// still says which user connects where: `postgresql://alertd:s3cret@db/alerts`
    /// becomes `postgresql://alertd:***@db/alerts`. A `password=` query
    /// parameter (libpq reads one) is hidden the same way.
    public static func redactingPassword(_ url: String) -> String {
        var out = url
        if let schemeEnd = out.firstRange(of: "://") {
            let rest = out[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? out.endIndex
            let authority = out[schemeEnd.upperBound..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                out = String(out[...colon]) + "***" + String(out[at...])
            }
        }
        guard let query = out.firstIndex(of: "?") else { return out }
        let parameters = out[out.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { p in
            p.lowercased().hasPrefix("password=") ? "password=***" : String(p)
        }
        return String(out[...query]) + parameters.joined(separator: "&")
    }
}
