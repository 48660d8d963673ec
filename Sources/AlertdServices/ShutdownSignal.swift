import AlertModel

/// The switch a service's ``Service/shutdownGracefully()`` flips and its
/// ``Service/run()`` waits on: a ``ChangeSignal`` waited on from its first
/// generation, so once triggered it stays triggered, and a request that
/// comes before `run()` begins is not lost.
public struct ShutdownSignal: Sendable {
    private let signal = ChangeSignal()

    public init() {}

    /// Whether shutdown has been asked for.
    public var isTriggered: Bool { signal.generation > 0 }

    /// Asks for shutdown; wakes every waiter.
    public func trigger() { signal.notify() }

    /// Waits until shutdown is asked for, `timeout` passes (nil: no limit),
    /// or the task is cancelled; true only in the first case.
    @discardableResult
    public func wait(for timeout: Duration? = nil) async -> Bool {
        await signal.wait(changedFrom: 0, timeout: timeout) > 0
    }
}
