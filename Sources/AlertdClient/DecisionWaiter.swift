import AlertModel
import AlertdHTTP

/// Waits for one alert's decision, for `send --wait`. It reads the alert
/// each time the event stream (re)connects and at every event about it, so
/// a decision taken before the stream was open, or while it was down, is
/// seen as surely as one announced on it.
package struct DecisionWaiter: Sendable {
    package let client: AlertdClient
    package let id: AlertID
    /// Hears, once an outage, that the connection to alertd was lost, and
    /// that it is back: the wait goes on silently otherwise, up to its
    /// timeout, and a lost daemon looked like a person taking their time.
    package let tell: @Sendable (String) -> Void

    package init(client: AlertdClient, id: AlertID, tell: @escaping @Sendable (String) -> Void = { _ in }) {
        self.client = client
        self.id = id
        self.tell = tell
    }

    private enum Outcome: Sendable {
        case decided(APIRepresentation.AlertDetail)
        case timedOut
        case failed(AlertdClientError)
    }

    /// The alert once it is decided, or as it stands when `timeout` passed
    /// (then still `open`).
    package func wait(timeout: Duration) async throws(AlertdClientError) -> APIRepresentation.AlertDetail {
        let outcome = await withTaskGroup(of: Outcome.self) { group in
            group.addTask { await follow() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .timedOut
            }
            let first = await group.next() ?? .timedOut
            group.cancelAll()
            return first
        }
        switch outcome {
        case .decided(let alert): return alert
        case .failed(let error): throw error
        case .timedOut:
            // One last look: the decision may have come with the deadline.
            // A brief one: the wait was already given its whole --timeout.
            var glance = client
            glance.timeout = min(client.timeout, Self.lastLook)
            return try await glance.show(id)
        }
    }

    /// How long the look after the timeout may take.
    static let lastLook: Duration = .seconds(5)

    private func follow() async -> Outcome {
        var lost = false
        do {
            for try await item in client.events() {
                switch item {
                case .connected:
                    if lost { tell("alertctl: reconnected to alertd; still waiting for the decision\n") }
                    lost = false
                    if let alert = try await decided() { return .decided(alert) }
                case .event(let event):
                    if AlertdEvent(event)?.alertID == id, let alert = try await decided() { return .decided(alert) }
                case .disconnected(let error):
                    if !lost { tell("alertctl: lost alertd (\(error.summary)); reconnecting until the --timeout\n") }
                    lost = true
                }
            }
        } catch let error as AlertdClientError {
            return .failed(error)
        } catch {
            return .failed(.transport(.cancelled(url: client.endpoint.description)))
        }
        // The stream ends only when this task is cancelled: the timeout won.
        return .timedOut
    }

    /// The alert if it is decided.
    private func decided() async throws(AlertdClientError) -> APIRepresentation.AlertDetail? {
        let alert = try await client.show(id)
        return alert.state.isFinal ? alert : nil
    }
}
