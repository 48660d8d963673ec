import AlertdLogging

/// Runs a daemon's services as one, in the manner of swift-service-lifecycle:
/// starts them in order, each only after the one before has started, and on
/// shutdown stops them in reverse order, each only after the one after it has
/// stopped, so a service never outlives what it depends on.
///
/// One grace period bounds the whole graceful shutdown. When it is over, the
/// services still running are cancelled; any that still do not return within
/// the cancellation limit are left behind, so the process can always exit.
/// A service that fails, or returns before being asked to, stops the group.
public actor ServiceGroup {
    private enum Phase {
        case idle, starting, running, stopping, cancelling, finished
    }

    private enum Event: Sendable {
        case exited(Int, (any Error)?)
        case shutdown
        case stopNow
        case graceOver
        case cancellationOver
    }

    private let services: [any Service]
    /// How long a graceful shutdown may take, all services together.
    public private(set) var gracePeriod: Duration
    /// How long cancelled services get to return before they are left behind.
    public let cancellationLimit: Duration
    private let log: Logger

    private var phase = Phase.idle
    private var stopRequested = false
    /// When the graceful shutdown was asked for: the grace counts from
    /// then, not from when the group's events got to it (600 ms later on
    /// a daemon busy with a thousand connections).
    private var shutdownRequested: ContinuousClock.Instant?
    private var events: AsyncStream<Event>.Continuation?
    /// The `run()` tasks of services that have not returned yet, by position.
    private var running: [Int: Task<Void, Never>] = [:]
    /// Services already asked to stop gracefully.
    private var asked: Set<Int> = []
    private var timers: [Task<Void, Never>] = []
    private var failure: ServiceGroupError?

    /// `services` in start order: each may rely on the ones before it.
    public init(services: [any Service], gracePeriod: Duration, cancellationLimit: Duration = .seconds(1),
                logger: Logger = Logger(label: "services")) {
        self.services = services
        self.gracePeriod = gracePeriod
        self.cancellationLimit = cancellationLimit
        self.log = logger
    }

    /// Starts the services and returns once they have all stopped: after
    /// ``triggerGracefulShutdown()`` or ``stopNow()``, or after one of them
    /// failed (then it throws, having stopped the rest). Cancelling the
    /// calling task is ``stopNow()``.
    public func run() async throws(ServiceGroupError) {
        guard phase == .idle else { throw ServiceGroupError(code: .alreadyRun, service: nil) }
        phase = .starting
        let (stream, input) = AsyncStream<Event>.makeStream()
        events = input
        // Iterating a stream ends when the iterating task is cancelled, but a
        // cancelled caller still wants its services stopped and waited for:
        // supervision runs in a task of its own.
        let supervisor = Task { await self.startAndSupervise(stream) }
        await withTaskCancellationHandler {
            await supervisor.value
        } onCancel: {
            input.yield(.stopNow)
        }
        if let failure { throw failure }
    }

    /// Asks the services to stop, newest first, each finishing its work in
    /// hand; the grace period starts now. Later calls change nothing.
    public func triggerGracefulShutdown() {
        if shutdownRequested == nil { shutdownRequested = .now }
        stopRequested = true
        events?.yield(.shutdown)
    }

    /// Changes the grace period of a shutdown that has not begun yet (a
    /// reloaded configuration).
    public func setGracePeriod(_ grace: Duration) {
        gracePeriod = grace
    }

    /// Cancels every service still running, without waiting for the grace
    /// period: what a second SIGTERM asks for.
    public func stopNow() {
        stopRequested = true
        events?.yield(.stopNow)
    }

    private func startAndSupervise(_ stream: AsyncStream<Event>) async {
        guard let input = events else { return }
        for (index, service) in services.enumerated() {
            if stopRequested { break }
            do {
                try await service.start()
            } catch {
                log.error("service could not start", ["service": service.name, "error": "\(error)"])
                failure = ServiceGroupError(code: .startFailed, service: service.name, underlying: error)
                break
            }
            running[index] = Task {
                do {
                    try await service.run()
                    input.yield(.exited(index, nil))
                } catch {
                    input.yield(.exited(index, error))
                }
            }
            log.debug("service started", ["service": service.name])
        }
        phase = .running
        if failure != nil || stopRequested { beginShutdown() }
        if !running.isEmpty {
            for await event in stream {
                handle(event)
                if running.isEmpty || phase == .finished { break }
            }
        }
        for timer in timers { timer.cancel() }
        input.finish()
        phase = .finished
    }

    private func handle(_ event: Event) {
        switch event {
        case .exited(let index, let error):
            running[index] = nil
            let name = services[index].name
            if let error, !(phase == .cancelling && error is CancellationError) {
                log.error("service failed", ["service": name, "error": "\(error)"])
                if failure == nil { failure = ServiceGroupError(code: .runFailed, service: name, underlying: error) }
            } else if phase == .running {
                log.error("service stopped without being asked to", ["service": name])
                if failure == nil { failure = ServiceGroupError(code: .exitedEarly, service: name) }
            } else {
                log.debug("service stopped", ["service": name])
            }
            if phase == .running { beginShutdown() } else { askNext() }
        case .shutdown:
            if phase == .running { beginShutdown() }
        case .stopNow:
            if phase == .running { beginShutdown() }
            cancelRunning(reason: "stop requested")
        case .graceOver:
            if phase == .stopping { cancelRunning(reason: "grace period over") }
        case .cancellationOver:
            log.error("services did not stop when cancelled; leaving them behind", ["services": runningNames])
            phase = .finished
        }
    }

    private func beginShutdown() {
        guard phase == .running, let input = events else { return }
        phase = .stopping
        log.debug("stopping services", ["grace_ms": "\(Self.milliseconds(gracePeriod))"])
        let graceOver = (shutdownRequested ?? .now).advanced(by: gracePeriod)
        timers.append(Task {
            do { try await Task.sleep(until: graceOver, clock: .continuous) } catch { return }
            input.yield(.graceOver)
        })
        askNext()
    }

    /// Asks the newest running service to stop, unless it has been asked
    /// already: the one before it is asked once it has stopped.
    private func askNext() {
        guard phase == .stopping, let index = running.keys.max(), !asked.contains(index) else { return }
        asked.insert(index)
        let service = services[index]
        log.debug("asking service to stop", ["service": service.name])
        // Not awaited here, so one slow answer cannot hold up the group's events.
        Task { await service.shutdownGracefully() }
    }

    private func cancelRunning(reason: String) {
        guard phase == .stopping, let input = events else { return }
        phase = .cancelling
        if !running.isEmpty {
            log.warning("cancelling services still running", ["reason": reason, "services": runningNames])
        }
        for task in running.values { task.cancel() }
        timers.append(Task { [cancellationLimit] in
            do { try await Task.sleep(for: cancellationLimit) } catch { return }
            input.yield(.cancellationOver)
        })
    }

    private var runningNames: String {
        running.keys.sorted().map { services[$0].name }.joined(separator: ", ")
    }

    private static func milliseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
    }
}
