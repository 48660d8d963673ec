import AlertdAPI
import AlertdPOSIX

extension APIAuthenticator {
    /// The authenticator for `tokenFile`: none configured leaves TCP open.
    public static func load(tokenFile: String?) throws(ConfigurationError) -> APIAuthenticator {
        guard let tokenFile else { return APIAuthenticator(token: nil) }
        let token: String
        do { token = try SecretFile.read(tokenFile) } catch {
            throw ConfigurationError(source: tokenFile, problems: [error.message])
        }
        guard token.count >= 16 else {
            throw ConfigurationError(source: tokenFile, problems: ["the API token is shorter than 16 characters; use e.g. `openssl rand -hex 32`"])
        }
        return APIAuthenticator(token: token)
    }
}
