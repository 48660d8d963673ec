import CMicroHTTPD
import FoundationEssentials
import Synchronization
import AlertdHTTP

/// libmicrohttpd's per-request state (its `con_cls`): the target, the body as
/// it arrives, and the hand-off of the response from the handler's task back
/// to the connection.
///
/// `@unchecked Sendable` is safe because the fields outside `handoff` and
/// `handling` are touched only by libmicrohttpd's callbacks for this
/// request, which run one at a time on the connection's worker thread; those
/// two, which cross to the handler's task and the server's sweep, are behind
/// `Mutex`es, and the connection pointer is only used under `handoff`'s lock
/// while the connection is suspended, which is exactly when libmicrohttpd
/// keeps it alive.
package final class RequestContext: @unchecked Sendable {
    package enum Phase {
        /// Headers are in; no body byte yet.
        case headers
        /// Reading the body.
        case body
        /// The body went over the limit at `since` (or, `busy`, past what
        /// the server keeps for bodies); draining it to answer 413 (or 503).
        case overflow(since: ContinuousClock.Instant, busy: Bool)
        /// The handler runs; the connection is suspended.
        case handling
        /// A response was queued.
        case answered
    }

    private enum Handoff {
        case idle
        case suspended
        case ready(HTTPResponse)
        case taken
        /// The server is stopping and wants no new suspension.
        case aborted
        /// libmicrohttpd is done with the connection.
        case closed
    }

    package let target: String
    /// The request's method, from libmicrohttpd's first call for it on.
    package var method = ""
    /// The target's length in bytes up to its first NUL, as libmicrohttpd gave it.
    package let targetLength: Int
    private let connection: OpaquePointer
    package var phase: Phase = .headers
    package var body = Data()
    /// The most of the body held at once: `body` is let go once the handler
    /// has it (or once it overflows), before the exchange ends.
    package var bodyBytes = 0
    /// The size of the answer's body, once it is queued (0 for a stream).
    package var answerBytes = 0
    /// What the answer took from ``MemoryBudget/answers``, given back as the exchange ends.
    package var answerReserved = 0
    /// What the body took from its server's budget for bodies (``MemoryBudget/forBodies()``), given back as the exchange ends.
    package var bodyReserved = 0
    /// A HEAD request: its answer has headers only.
    package var isHead = false
    private let handoff = Mutex<Handoff>(.idle)
    /// The handler's task and when it began, for ``cancelIfClientGone(after:at:)``.
    private let handling = Mutex<(task: Task<Void, Never>, since: ContinuousClock.Instant)?>(nil)

    package init(target: String, targetLength: Int, connection: OpaquePointer) {
        self.target = target
        self.targetLength = targetLength
        self.connection = connection
    }

    /// Suspends the connection for the handler's run. False when the server
    /// already asked to abort, in which case the caller answers at once.
    package func suspend() -> Bool {
        handoff.withLock { h in
            guard case .idle = h else { return false }
            h = .suspended
            // Under the lock, so a deliver() racing with us never resumes a
            // connection that is not suspended yet.
            MHD_suspend_connection(connection)
            return true
        }
    }

    /// Called from the handler's task; resumes the connection so its worker
    /// thread queues the response.
    package func deliver(_ response: HTTPResponse) {
        handoff.withLock { h in
            guard case .suspended = h else { return }
            h = .ready(response)
            MHD_resume_connection(connection)
        }
    }

    /// Answers with `response` instead of the handler, which may still be
    /// running; used when the server stops.
    package func abort(with response: HTTPResponse) {
        handoff.withLock { h in
            switch h {
            case .idle:
                h = .aborted
            case .suspended:
                h = .ready(response)
                MHD_resume_connection(connection)
            case .ready, .taken, .aborted, .closed:
                break
            }
        }
    }

    /// The handler's response, once, after the connection was resumed.
    package func takeResponse() -> HTTPResponse? {
        handoff.withLock { h in
            guard case .ready(let response) = h else { return nil }
            h = .taken
            return response
        }
    }

    /// Runs `handler` in a task of its own, answering with what it returns.
    package func run(_ handler: @escaping HTTPServer.Handler, _ request: HTTPRequest) {
        let task = Task { self.deliver(await handler(request)) }
        handling.withLock { $0 = (task, .now) }
    }

    /// Cancels the handler once it has run for `after` and its client has
    /// closed or reset the connection. While the connection is suspended
    /// libmicrohttpd does not watch its socket: thirty clients that sent a
    /// costly listing and went kept a core busy for 51 s, and their slots
    /// held, the listings of those who stayed waiting behind them.
    /// A client that only shut its sending side, still reading, is taken
    /// for gone, as Go's HTTP server (Alertmanager's) takes it: a FIN reads
    /// the same either way, and a client that timed out and closed sends
    /// one, not a reset.
    package func cancelIfClientGone(after: Duration, at now: ContinuousClock.Instant = .now) {
        guard let (task, since) = handling.withLock({ $0 }), !task.isCancelled, now - since >= after else { return }
        // Under the lock: the connection, and its socket, stay only while suspended.
        let gone = handoff.withLock { h in
            guard case .suspended = h else { return false }
            return ConnectionWatch.peerHasGone(alertd_mhd_connection_fd(connection))
        }
        if gone { task.cancel() }
    }

    /// libmicrohttpd finished the request; nothing may touch the connection after this.
    package func close() {
        handoff.withLock { $0 = .closed }
    }
}
