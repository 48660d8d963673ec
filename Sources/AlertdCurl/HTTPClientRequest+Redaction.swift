import AlertModel

extension HTTPClientRequest {
    /// The URL as errors name it: without user info (``URLRedaction``).
    package var redactedURL: String { URLRedaction.redactingUserInfo(url) }
}
