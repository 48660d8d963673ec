/// A long-running part of a daemon (a server, a work loop, a notifier) that a
/// ``ServiceGroup`` starts in order and stops in reverse order.
///
/// The contract, in the manner of swift-service-lifecycle:
/// - ``start()`` gets the service ready to run (binds a socket, recovers
///   state) and returns; the group starts the next service only after it,
///   and a throw aborts startup.
/// - ``run()`` does the work until ``shutdownGracefully()`` is called, then
///   finishes what it has in hand and returns.
/// - Cancellation of `run()`'s task means the grace is over: drop the work in
///   hand (it must be safe to drop) and return promptly.
///
/// ```swift
/// let group = ServiceGroup(services: [dispatcher, apiServer], gracePeriod: .seconds(10), logger: log)
/// try await group.run()   // until group.triggerGracefulShutdown()
/// ```
public protocol Service: Sendable {
    /// Names the service in logs and errors.
    var name: String { get }

    /// Gets the service ready to run. The default does nothing.
    func start() async throws

    /// Does the service's work until it is asked to stop or its task is
    /// cancelled. Returning or throwing before being asked to stop stops the
    /// whole group.
    func run() async throws

    /// Asks ``run()`` to take no new work, finish what it has, and return.
    /// Returns without waiting for that. It may come before `run()` has
    /// begun (which should then return at once) and more than once.
    func shutdownGracefully() async
}

extension Service {
    public func start() async throws {}
}
