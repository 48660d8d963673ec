import AlertModel

extension APIError {
    /// 400 for a matcher or silence that breaks a rule; the code is the
    /// rule's (`invalid_matcher`, `invalid_regex`, `unsupported_regex`, `invalid_silence`).
    package init(_ error: SilenceError) {
        self.init(status: 400, code: error.code.rawValue, message: error.message)
    }

    /// 404 for a silence id that names nothing. The words "not found" are
    /// what `amtool silence import` looks for before it retries an
    /// imported silence as a new one.
    package static func silenceNotFound(_ raw: String) -> APIError {
        APIError(status: 404, code: "silence_not_found",
                 message: "silence \(raw) not found; list them with `amtool silence query` or `alertctl silence list`.")
    }
}
