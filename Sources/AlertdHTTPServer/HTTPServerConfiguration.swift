import AlertdHTTP
import AlertdPOSIX

/// How an ``HTTPServer`` listens and what it tolerates. Every field has a default.
public struct HTTPServerConfiguration: Sendable {
    /// Where the server accepts connections.
    public enum Listener: Sendable, Equatable {
        /// TCP on a numeric address or `localhost`; port 0 picks a free port
        /// (read it back from ``HTTPServer/port``).
        case tcp(host: String, port: UInt16)
        /// A Unix-domain socket at `path`, created by the server with
        /// permission bits `mode` and removed again on stop. A stale socket
        /// file is replaced; a live one is an error.
        case unixSocket(path: String, mode: UInt16 = 0o660)
        /// A socket that is already bound and listening, such as one systemd
        /// passed in. The server does not close it on stop; its owner does.
        case listeningSocket(descriptor: Int32, kind: HTTPRequest.Listener)
    }

    public var listener: Listener = .tcp(host: "127.0.0.1", port: 0)
    /// Worker threads, each with its own epoll loop.
    public var threadPoolSize: Int = 2
    /// Connections beyond this are refused at accept time.
    public var connectionLimit: Int = 1024
    /// Connections from one TCP client address beyond this are closed at
    /// accept time, so one client cannot take all of ``connectionLimit`` and
    /// lock everyone else out; the addresses of one IPv6 /64 together may
    /// hold half of ``connectionLimit``, as a host may have a whole /64 of
    /// addresses. Unix-socket peers have no address and are not counted. 0
    /// turns the limit off.
    public var perClientConnectionLimit: Int = 128
    /// A connection that sends or takes nothing for this long is closed
    /// (whole seconds; at least 1 s): one that never completes its request,
    /// or a kept-alive one between requests; a stream whose client stopped
    /// reading has ``streamIdleTimeout``. A connection waiting for its
    /// handler or for the next chunk of a stream is not idle.
    public var connectionTimeout: Duration = .seconds(10)
    /// How long a connection may take to send a whole request (its line,
    /// headers and body), from when it opened or its previous answer was
    /// sent. One that takes longer is closed however steadily it trickles,
    /// where ``connectionTimeout`` closes only a silent one. The handler's
    /// time, and a stream's, do not count.
    public var requestTimeout: Duration = .seconds(30)
    /// ``requestTimeout`` while three quarters of ``connectionLimit`` or more
    /// are open: connections that trickle their requests then make room for
    /// new clients within this, instead of holding the listener against them.
    public var requestTimeoutUnderLoad: Duration = .seconds(2)
    /// Request bodies larger than this are answered with 413 `body_too_large`:
    /// at once when `Content-Length` says so, else (a chunked body) once the
    /// body ends: the server reads the rest and drops it, so the client,
    /// still sending, gets to read the 413. A body still coming 10 seconds
    /// past the limit is cut off without an answer.
    public var maxBodyBytes: Int = 4 << 20
    /// Most bytes of a streamed response (Server-Sent Events) held for one
    /// client that has not read them yet: past them the server takes no
    /// more from the stream until the client has read half, so a client far
    /// behind (catching up) is fed as fast as it reads, and costs no more
    /// memory than this and what the stream itself buffers. A client that
    /// takes nothing for ``streamIdleTimeout`` is closed.
    public var maxStreamBufferBytes: Int = 128 * 1024
    /// ``connectionTimeout`` for a streamed response's connection: how long
    /// its client may take nothing while bytes wait for it (whole seconds;
    /// at least 1 s). A client's kernel opens its window again only once it
    /// has read nearly all it holds (some 120 KB), so one reading 10 KB a
    /// second took nothing for 12 s at a time, and 10 s took it for gone.
    public var streamIdleTimeout: Duration = .seconds(60)
    /// Streamed responses (event streams) one TCP client address may hold
    /// open (the addresses of one IPv6 /64 together, half of all streams);
    /// all clients together may hold half of ``connectionLimit``.
    /// Streams wait for events by design, so no timeout closes them; past
    /// these, a new stream is answered 503 `too_many_streams`, and the other
    /// half of the slots stays for everything else.
    public var maxStreamsPerClient: Int = 16
    /// Memory per connection for the request line, headers and I/O buffers;
    /// requests whose headers do not fit are refused by the server.
    public var connectionMemoryLimit: Int = 32 * 1024
    /// How long `stop()` waits for running handlers before answering their
    /// requests with 503 itself.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// Hears of every exchange that moved large bodies (``HeapTrimmer``).
    package var trimmer: HeapTrimmer = .shared
    /// Bounds what answers waiting for slow clients hold (``MemoryBudget/answers``).
    package var answerBudget: MemoryBudget = .answers
    /// Bounds what request bodies hold until their exchanges end (``MemoryBudget/forBodies()``).
    package var bodyBudget: MemoryBudget = .forBodies()

    public init(listener: Listener = .tcp(host: "127.0.0.1", port: 0)) {
        self.listener = listener
    }
}
