/// One named API token: `alice` with her secret and scopes, from
/// `api.tokens_file`, or the `api.token_file` token (named `token`, every
/// scope). The secret is compared in constant time and never logged: its
/// description leaves it out.
public struct APIToken: Sendable, Equatable, CustomStringConvertible {
    /// What decisions record as their actor.
    public let name: String
    package let secret: [UInt8]
    public let scopes: APIScopes

    public init(name: String, secret: String, scopes: APIScopes) {
        self.name = name
        self.secret = Array(secret.utf8)
        self.scopes = scopes
    }

    /// The name a token from `api.token_file` goes by.
    public static let singleTokenName = "token"

    public var description: String { "\(name) (\(scopes.names.joined(separator: ", ")))" }
}
