/// How a route writes its errors. alertd's own routes use alertd's error
/// object; the routes that speak Alertmanager's API answer as Alertmanager
/// does, so Prometheus, amtool and other Alertmanager clients can read them.
public enum APIErrorStyle: Sendable, Equatable {
    /// `{"error": {"code": …, "message": …}}` (``HTTPErrorBody``).
    case alertd
    /// A JSON string holding the message, as Alertmanager's API answers.
    case alertmanager
}
