import FoundationEssentials

extension HTTPErrorBody {
    /// The header that carries an error's stable code where the body is
    /// Alertmanager's (a JSON string, room for the message only).
    public static let codeHeader = "Alertd-Error-Code"

    /// Reads an error in Alertmanager's shape: the message from the JSON
    /// string body, the code from ``codeHeader``. Nil when the body is not
    /// a JSON string.
    public static func decodeAlertmanager(_ data: Data, headers: HTTPHeaders) -> Content? {
        guard let message = try? JSONDecoder().decode(String.self, from: data) else { return nil }
        return Content(code: headers[codeHeader] ?? "alertmanager_error", message: message)
    }
}
