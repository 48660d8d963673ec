/// Polls `condition` every `interval` until it holds or `timeout` passes;
/// whether it held in the end. Tests wait on a daemon's effects with this,
/// never with a fixed sleep.
func eventually(
    _ timeout: Duration = .seconds(5), every interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
