import FoundationEssentials
import AlertModel
import AlertdAPI
import AlertdPOSIX

extension APIAuthenticator {
    /// The tokens of `api.token_file` and `api.tokens_file`; nil when neither
    /// is configured, which leaves TCP open. Read again on
    /// each reload. A problem names the file and the entry, never a secret.
    public static func tokens(tokenFile: String?, tokensFile: String?) throws(ConfigurationError) -> [APIToken]? {
        guard tokenFile != nil || tokensFile != nil else { return nil }
        var tokens: [APIToken] = []
        if let tokenFile {
            let secret = try secret(SecretFile.read, tokenFile, key: "api.token_file")
            try checkLength(secret, tokenFile, entry: "the API token")
            tokens.append(APIToken(name: APIToken.singleTokenName, secret: secret, scopes: .all))
        }
        if let tokensFile { tokens += try named(tokensFile, besides: tokens) }
        return tokens
    }

    /// `{"alice": {"token": "…", "scopes": ["read", "decide"]}, …}`.
    private static func named(_ path: String, besides earlier: [APIToken]) throws(ConfigurationError) -> [APIToken] {
        let bytes = try secret(SecretFile.contents, path, key: "api.tokens_file")
        // The parser's own message may quote the text, and the text is secrets.
        guard let root = try? StrictJSON.parse(Data(bytes)) as? [String: Any] else {
            throw ConfigurationError(source: path, problems: [
                "is not a JSON object of named tokens, e.g. {\"alice\": {\"token\": \"…\", \"scopes\": [\"read\", \"decide\"]}}"])
        }
        var problems: [String] = []
        var tokens: [APIToken] = []
        let known = APIScope.allCases.map(\.rawValue).joined(separator: ", ")
        for name in root.keys.sorted() {
            guard isValidName(name) else {
                problems.append("`\(name)`: a token's name (what decisions record) is 1 to 64 letters, digits, `.`, `_`, `-` or `@`")
                continue
            }
            guard let entry = root[name] as? [String: Any], Set(entry.keys).isSubset(of: ["token", "scopes"]),
                  let secret = entry["token"] as? String, let rawScopes = entry["scopes"] as? [String] else {
                problems.append("\(name): must be {\"token\": \"…\", \"scopes\": [\(known)]} and nothing else")
                continue
            }
            let secretProblem = secret.trimmingSpaces().count < 16 || secret != secret.trimmingSpaces()
            if secretProblem { problems.append("\(name).token: is shorter than 16 characters or has spaces around it; use e.g. `openssl rand -hex 32`") }
            let scopes = rawScopes.compactMap(APIScope.init(rawValue:))
            if scopes.count != rawScopes.count || scopes.isEmpty {
                problems.append("\(name).scopes: must list one or more of \(known)")
            }
            if earlier.contains(where: { $0.name == name }) {
                problems.append("\(name): the name `token` belongs to api.token_file's token; choose another")
            }
            let token = APIToken(name: name, secret: secret, scopes: APIScopes(scopes))
            if (earlier + tokens).contains(where: { $0.secret == token.secret }) {
                problems.append("\(name).token: is the same as another token's; each name needs its own")
            }
            tokens.append(token)
        }
        if root.isEmpty { problems.append("names no token; add one, or remove api.tokens_file") }
        guard problems.isEmpty else { throw ConfigurationError(source: path, problems: problems) }
        return tokens
    }

    private static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.count) && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-@".unicodeScalars.contains($0)
        }
    }

    /// The file's content; a file that cannot be read is `key`'s problem (its message names the file).
    private static func secret<T>(_ read: (String) throws(SecretFileError) -> T, _ path: String, key: String) throws(ConfigurationError) -> T {
        do { return try read(path) } catch {
            throw ConfigurationError(source: key, problems: [error.message])
        }
    }

    private static func checkLength(_ token: String, _ path: String, entry: String) throws(ConfigurationError) {
        guard token.count >= 16 else {
            throw ConfigurationError(source: path, problems: ["\(entry) is shorter than 16 characters; use e.g. `openssl rand -hex 32`"])
        }
    }
}
