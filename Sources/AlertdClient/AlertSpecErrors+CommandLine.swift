import AlertModel

extension AlertSpecErrors {
    /// One `error: <field>: <message> [<code>]` line per problem, each ending in a newline.
    public var commandLineText: String {
        errors.map { "error: \($0)\n" }.joined()
    }
}
