import AlertdHTTP

extension HandlerURL {
    /// The URL with `parameters` in its query, and that query: each replaces
    /// any of its name the URL had, and the rest of the query is kept byte
    /// for byte. Appended through `URLComponents.queryItems`, the sender's
    /// own `decision=cancelled` came first and was the one a handler read,
    /// and the rebuilt query decoded `%2B` and `%3B` that a template had
    /// encoded so a value could not split. A `;` kept is sent as `%3B`,
    /// the same to a parser that splits on `&` alone: one that splits on
    /// `;` too (Python's before 3.9.2, some frameworks) read the sender's
    /// `a=1;by=mallory` as a `by` of its own.
    package func replacingQuery(_ parameters: [(name: String, value: String)]) -> (url: String, query: String) {
        let names = Set(parameters.map(\.name))
        var parts = (query ?? "").split(separator: "&", omittingEmptySubsequences: true).filter { part in
            let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            return !names.contains(HTTPRequestTarget.percentDecode(name.utf8, plusIsSpace: true))
        }.map { $0.replacing(";", with: "%3B") }
        parts += parameters.map { HTTPRequestTarget.percentEncode($0.name) + "=" + HTTPRequestTarget.percentEncode($0.value) }
        let query = parts.joined(separator: "&")
        var url = string
        if let start = url.firstIndex(of: "?") { url = String(url[..<start]) }
        return (url + "?" + query, query)
    }
}
