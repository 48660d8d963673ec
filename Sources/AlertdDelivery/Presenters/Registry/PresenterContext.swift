import AlertdCurl

/// What every presenter may share, handed to it when it is made.
public struct PresenterContext: Sendable {
    /// One client for every presenter that speaks HTTP: its multi handle
    /// reuses connections across presenters and deliveries.
    public var httpClient: HTTPClient
    /// Where relative paths in presenter settings point.
    public var stateDirectory: String

    public init(httpClient: HTTPClient, stateDirectory: String) {
        self.httpClient = httpClient
        self.stateDirectory = stateDirectory
    }

    /// `path`, resolved against the state directory when relative.
    public func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : stateDirectory + "/" + path
    }
}
