import AlertdCurl

/// One attempt of an ``HTTPRequestPresenter``: a request to send and how
/// its answer is judged, or the outcome when no request can be made.
public enum HTTPAttempt: Sendable {
    /// Judges the answer, or the failure to get one.
    public typealias Judge = @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> PresentationOutcome

    case send(HTTPClientRequest, on: HTTPClient, judge: Judge)
    case settled(PresentationOutcome)

    /// Runs the attempt in the calling task.
    public func outcome() async -> PresentationOutcome {
        switch self {
        case .settled(let outcome):
            return outcome
        case .send(let request, let client, let judge):
            do { return judge(.success(try await client.send(request))) } catch { return judge(.failure(error)) }
        }
    }

    /// Runs the attempt on the client's thread; `done` gets its outcome
    /// there (or at once, in the caller, when it is settled already). What
    /// it returns aborts the request.
    public func start(_ done: @escaping @Sendable (PresentationOutcome) -> Void) -> HTTPClientTransfer? {
        switch self {
        case .settled(let outcome):
            done(outcome)
            return nil
        case .send(let request, let client, let judge):
            return client.send(request) { done(judge($0)) }
        }
    }
}
