import CMicroHTTPD
import FoundationEssentials
import Synchronization
import AlertdHTTP
import AlertdPOSIX

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd: a pool of worker threads, each with an
/// epoll loop, feeding requests to one async handler.
///
/// libmicrohttpd's callbacks are synchronous, so each request, once its body
/// is in, suspends its connection, runs the handler in a task, and resumes the
/// connection with the response; no worker thread ever waits for a handler.
///
/// One server serves one listener; the daemon runs two with the same handler.
/// ```swift
/// let server = HTTPServer(configuration: .init(listener: .tcp(host: "127.0.0.1", port: 0))) { request in
///     .text("hello")
/// }
/// try server.start()
/// ...
/// await server.stop()
/// ```
public final class HTTPServer: Sendable {
    /// Answers one request. It cannot fail: errors are responses too.
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse
    /// Looks at a request whose head is in and whose body is still to come
    /// and returns the answer it gets without its body being read, or nil to
    /// read it. So a caller without credentials cannot make the server hold
    /// megabytes per connection first. It is handed a way to build the
    /// request (its `body` empty), so a screen with nothing to check costs
    /// the request nothing. It runs on the server's own thread: it must not block.
    public typealias Screen = @Sendable (_ head: () -> HTTPRequest) -> HTTPResponse?
    /// The answer to an error the server gives by itself, before any
    /// handler (a body too large, a bad target, shutting down, busy), for a
    /// request to `target` with `method` (empty when the target itself was
    /// refused before libmicrohttpd named it): by default an
    /// ``HTTPResponse/error(status:code:message:)``. A caller whose routes
    /// speak other error shapes answers in the target's. It runs on the
    /// server's own thread: it must not block.
    public typealias ErrorAnswer = @Sendable (_ method: String, _ target: String, _ status: Int, _ code: String, _ message: String) -> HTTPResponse

    private enum State {
        case idle
        case running(Running)
        case stopped
    }

    private struct Running {
        package let daemon: OpaquePointer
        package let core: Unmanaged<MHDServerCore>
        package var socket: ListeningSocket
        package var acceptor: ConnectionAcceptor
        package let connectionLimit: Int
        /// Sweeps the ``ConnectionWatch`` until the server stops.
        package let sweeper: Task<Void, Never>
    }

    public let configuration: HTTPServerConfiguration
    private let handler: Handler
    private let screen: Screen?
    private let errorAnswer: ErrorAnswer?
    private let state = Mutex(State.idle)
    /// Where the server listens, set by `start()`: the bound TCP port, or the socket path.
    private let bound = Mutex<(port: UInt16?, address: String)?>(nil)

    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(), screen: Screen? = nil,
                errorAnswer: ErrorAnswer? = nil, handler: @escaping Handler) {
        self.configuration = configuration
        self.screen = screen
        self.errorAnswer = errorAnswer
        self.handler = handler
    }

    deinit {
        // A server dropped without stop() must not leave worker threads
        // calling into freed memory; stop it without the grace period.
        if case .running(let running) = state.withLock({ $0 }) {
            Self.tearDown(running)
        }
    }

    /// The TCP port actually bound (useful with port 0), once started.
    public var port: UInt16? { bound.withLock { $0?.port } }

    /// `host:port` or the socket path, once started; for logs.
    public var address: String? { bound.withLock { $0?.address } }

    /// Binds the listener and starts the worker threads.
    public func start() throws(HTTPServerError) {
        try state.withLock { (state: inout State) throws(HTTPServerError) in
            guard case .idle = state else { throw .alreadyStarted }
            let socket: ListeningSocket
            switch configuration.listener {
            case .tcp(let host, let port):
                socket = try ListeningSocket.tcp(host: host, port: port)
            case .unixSocket(let path, let mode):
                socket = try ListeningSocket.unix(path: path, mode: mode)
            case .listeningSocket(let descriptor, let kind):
                socket = try ListeningSocket.adopt(descriptor: descriptor, kind: kind)
            }
            let connectionLimit = max(1, configuration.connectionLimit)
            let watch = ConnectionWatch(
                timeout: configuration.requestTimeout, timeoutUnderLoad: configuration.requestTimeoutUnderLoad,
                loadThreshold: connectionLimit - connectionLimit / 4)
            let core = Unmanaged.passRetained(MHDServerCore(
                handler: handler, screen: screen, errorAnswer: errorAnswer, maxBodyBytes: max(0, configuration.maxBodyBytes), listener: socket.kind,
                maxStreamBufferBytes: max(16 * 1024, configuration.maxStreamBufferBytes), streamIdleTimeout: configuration.streamIdleTimeout,
                maxStreams: max(1, connectionLimit / 2), maxStreamsPerClient: configuration.maxStreamsPerClient,
                perClientConnectionLimit: configuration.perClientConnectionLimit, connectionLimit: connectionLimit, watch: watch,
                trimmer: configuration.trimmer, answerBudget: configuration.answerBudget, bodyBudget: configuration.bodyBudget))
            // libmicrohttpd gets no listener (ConnectionAcceptor says why): it
            // is handed each connection, through its inter-thread channel.
            let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
                | MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_ITC.rawValue
            let daemon = alertd_mhd_start(
                flags,
                MHDServerCore.acceptPolicy, core.toOpaque(),
                MHDServerCore.accessHandler, core.toOpaque(),
                MHDServerCore.requestCompleted, core.toOpaque(),
                MHDServerCore.uriLog, nil,
                MHDServerCore.connectionNotified, core.toOpaque(),
                UInt32(clamping: max(1, configuration.threadPoolSize)),
                // Room for every connection in each worker: the acceptor keeps the limit (it says why).
                UInt32(clamping: connectionLimit * max(1, configuration.threadPoolSize)),
                UInt32(clamping: max(1, configuration.connectionTimeout.components.seconds)),
                max(4096, configuration.connectionMemoryLimit))
            guard let daemon else {
                core.release()
                socket.close()
                throw .startFailed(reason: "libmicrohttpd rejected the settings (thread pool size \(configuration.threadPoolSize), connection limit \(configuration.connectionLimit)); check them, and the system's thread and file limits")
            }
            let acceptor: ConnectionAcceptor
            do throws(HTTPServerError) {
                acceptor = try ConnectionAcceptor(listener: socket.descriptor, daemon: daemon, core: core.takeUnretainedValue(),
                                                  connectionLimit: connectionLimit, address: socket.address)
            } catch {
                MHD_stop_daemon(daemon)
                core.release()
                socket.close()
                throw error
            }
            // Holds the core until it ends, past tearDown's release.
            let handlers = core.takeUnretainedValue()
            let sweeper = Task.detached {
                while !Task.isCancelled {
                    // With no connection open nothing can overrun: an idle daemon wakes once a second, not four times.
                    try? await Task.sleep(for: watch.count == 0 ? .seconds(1) : ConnectionWatch.sweepInterval)
                    watch.sweep()
                    handlers.cancelAbandonedHandlers()
                }
            }
            state = .running(Running(daemon: daemon, core: core, socket: socket, acceptor: acceptor, connectionLimit: connectionLimit,
                                     sweeper: sweeper))
            bound.withLock { $0 = (socket.port, socket.address) }
        }
    }

    /// What ``remakeSocketFileIfRemoved()`` found at the socket's path.
    public enum SocketFileCheck: Sendable, Equatable {
        /// The server's own socket file, or a listener that has none (TCP,
        /// one systemd passed).
        case inPlace
        /// The file was gone; a new socket listens at the path.
        case remade
        /// Another file is at the path now; the server leaves it alone and
        /// cannot be reached there.
        case taken
    }

    /// For a Unix socket the server made: when its file is gone (a clean-up
    /// of `/run`, an `rm` by hand), binds a new socket at the path and
    /// accepts there from now on. Open connections go on, and those that
    /// connected before and wait in the old socket's queue are still taken
    /// up (the acceptor closes the old socket once its queue is empty).
    /// Without this, `alertctl` found nothing to connect to until a restart.
    /// A file of another's at the path is left alone. Blocks for as long as
    /// an acceptor takes to stop: call it off the task pool.
    public func remakeSocketFileIfRemoved() throws(HTTPServerError) -> SocketFileCheck {
        guard case .unixSocket(_, let mode) = configuration.listener else { return .inPlace }
        return try state.withLock { (state: inout State) throws(HTTPServerError) -> SocketFileCheck in
            guard case .running(var running) = state, let (path, identity) = running.socket.unixPath else { return .inPlace }
            switch FileStatus.link(path) {
            case .success(let status): return status.identity == identity ? .inPlace : .taken
            case .failure(let error) where error == .noSuchFile: break
            case .failure: return .inPlace
            }
            let socket = try ListeningSocket.unix(path: path, mode: mode)
            // One acceptor at a time, so the count of connections handed over stays whole.
            let handover = running.acceptor.stop()
            let acceptor: ConnectionAcceptor
            do throws(HTTPServerError) {
                acceptor = try ConnectionAcceptor(
                    listener: socket.descriptor, daemon: running.daemon, core: running.core.takeUnretainedValue(),
                    connectionLimit: running.connectionLimit, address: socket.address, from: handover,
                    retiring: [running.socket.descriptor])
            } catch {
                // The stopped acceptor and the old socket stay as they are, for tearDown;
                // the next call tries again (``ConnectionAcceptor/stop()`` of a stopped one returns at once).
                socket.close()
                throw error
            }
            // The old socket's descriptor is the new acceptor's now, and its file is gone: nothing to close here.
            running.socket = socket
            running.acceptor = acceptor
            state = .running(running)
            return .remade
        }
    }

    /// Stops gracefully: stops accepting, ends open streams, lets running
    /// handlers finish for up to `shutdownGracePeriod` (answering the rest
    /// with 503), then stops the worker threads and removes the socket file.
    public func stop() async {
        let running: Running? = state.withLock { state in
            guard case .running(let running) = state else { return nil }
            state = .stopped
            return running
        }
        guard let running else { return }
        let core = running.core.takeUnretainedValue()
        // From here nothing is accepted: what connects waits in the listener's
        // queue, for the next start when systemd holds the listener.
        core.beginStopping()
        running.acceptor.stop()
        await Self.drain(core, for: configuration.shutdownGracePeriod)
        core.abortAll()
        // The 503s and final chunks just queued still have to reach the wire,
        // the grace over or not: in a task of its own, since a cancelled
        // task's sleep ends at once, and stopping the daemon then closed the
        // connections they were queued on unanswered. Cancelled, it waits
        // less, within the second the service group gives a cancelled service.
        let limit = Task.isCancelled ? Self.cancelledDrainLimit : Self.abortDrainLimit
        await Task { await Self.drain(core, for: limit) }.value
        Self.tearDown(running)
    }

    /// How long stop() waits for the answers it forced to be sent.
    private static let abortDrainLimit: Duration = .seconds(1)
    /// The same once the grace is over (the task cancelled).
    private static let cancelledDrainLimit: Duration = .milliseconds(250)

    /// Waits until nothing is in flight or `limit` passes. libmicrohttpd has
    /// no completion signal to await across all connections, so this polls.
    private static func drain(_ core: MHDServerCore, for limit: Duration) async {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while core.inFlight > 0, ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(5)) } catch { return }
        }
    }

    /// Stops accepting, wakes every suspended connection (libmicrohttpd
    /// aborts the process if it is stopped with one), stops the daemon,
    /// closes the socket (one systemd passed stays open, for its next start).
    private static func tearDown(_ running: Running) {
        for fd in running.acceptor.stop().retiring { _ = close(fd) }
        running.sweeper.cancel()
        running.core.takeUnretainedValue().abortAll()
        MHD_stop_daemon(running.daemon)
        running.socket.close()
        running.core.release()
    }
}
