import Foundation
import AlertdAPI

extension APIAuthenticator {
    /// Reads the token from a file, trimming the trailing newline editors add.
    public static func load(tokenFile: String?) throws(ConfigurationError) -> APIAuthenticator {
        guard let tokenFile else { return APIAuthenticator(token: nil) }
        guard let data = FileManager.default.contents(atPath: tokenFile) else {
            throw ConfigurationError(source: tokenFile, problems: ["cannot read the API token file (does it exist, and may alertd read it?)"])
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= 16 else {
            throw ConfigurationError(source: tokenFile, problems: ["the API token is shorter than 16 characters; use e.g. `openssl rand -hex 32`"])
        }
        return APIAuthenticator(token: token)
    }
}
