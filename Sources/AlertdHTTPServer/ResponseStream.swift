import CMicroHTTPD
import AlertdPOSIX
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Feeds a streaming response body to libmicrohttpd's content-reader callback.
/// A task copies chunks from the `AsyncStream` into a buffer; when the buffer
/// is empty the reader suspends the connection instead of blocking a worker
/// thread, and the next chunk resumes it. The buffer is bounded: a client
/// that lets more than `maxBuffered` bytes pile up is dropped (its
/// connection ends without the final chunk), so a client that never reads
/// costs a bounded amount of memory; an event-stream client reconnects with
/// `Last-Event-ID` and misses nothing.
///
/// `@unchecked Sendable` is safe because all state, including the connection
/// pointer's use, is behind `state`'s lock, and the connection is only
/// resumed while suspended, when libmicrohttpd keeps it alive.
package final class ResponseStream: @unchecked Sendable {
    private struct State {
        package var buffer = BlockQueue()
        package var finished = false
        package var suspended = false
        package var closed = false
        /// The client took nothing for `stallLimit` with `maxBuffered` bytes waiting, and is being dropped.
        package var dropped = false
        /// Every byte the client has taken: what tells a slow client from a stalled one.
        package var taken = 0
        package var producer: Task<Void, Never>?
        /// Every byte the stream has buffered, for the trim after it.
        package var pushed = 0
    }

    /// libmicrohttpd's "end of stream" and "error" returns (the C macros carry casts Swift cannot import).
    package static let endOfStream = -1
    package static let endWithError = -2

    private let connection: OpaquePointer
    private let core: MHDServerCore
    /// Unsent bytes past which no more are taken from the stream (one chunk may go past it).
    private let maxBuffered: Int
    /// How long a client may take nothing, with `maxBuffered` bytes waiting, before it is dropped.
    private let stallLimit: Duration
    private let state = Mutex(State())

    package init(connection: OpaquePointer, core: MHDServerCore, maxBuffered: Int, stallLimit: Duration) {
        self.connection = connection
        self.core = core
        self.maxBuffered = maxBuffered
        self.stallLimit = stallLimit
    }

    /// Starts copying `stream` into the buffer.
    package func start(_ stream: AsyncStream<Data>) {
        let producer = Task { [self] in
            for await chunk in stream where !chunk.isEmpty {
                guard await waitForRoom(), push(chunk) else {
                    // Leaving the loop alone would leave whoever feeds the stream
                    // feeding it: a `next()` in a cancelled task ends the stream,
                    // which runs its `onTermination` and stops them.
                    withUnsafeCurrentTask { $0?.cancel() }
                    continue
                }
            }
            finish()
        }
        state.withLock { s in
            if s.closed { producer.cancel() } else { s.producer = producer }
        }
    }

    /// Ends the body after what is buffered; used when the stream finishes and when the server stops.
    package func finish() {
        state.withLock { s in
            s.finished = true
            wake(&s)
        }
    }

    /// libmicrohttpd released the response: stop the producer. What the
    /// stream moved counts towards handing freed memory back to the kernel
    /// once such work stops: 512 stalled event streams left the idle daemon
    /// at 200 MB.
    package func close() {
        let (producer, pushed) = state.withLock { s in
            s.closed = true
            s.buffer.removeAll()
            return (s.producer, s.pushed)
        }
        producer?.cancel()
        core.forget(self)
        core.trimmer.exchangeEnded(bytes: pushed)
    }

    /// Whether the client has closed or reset its end, looked at without
    /// waiting. While the reader is suspended libmicrohttpd does not watch
    /// the socket, and learns of a client gone only at the next write, a
    /// keep-alive (15 s) later.
    package func clientGone() -> Bool {
        // Under the lock: once released the connection, and its socket, may be gone.
        state.withLock { s in
            guard !s.closed else { return true }
            return ConnectionWatch.peerHasGone(alertd_mhd_connection_fd(connection))
        }
    }

    /// Ends the stream now, as one whose client fell behind is ended.
    package func drop() {
        state.withLock { s in
            guard !s.closed else { return }
            s.dropped = true
            s.buffer.removeAll()
            wake(&s)
        }
    }

    /// The content-reader callback's work: copy up to `max` bytes into `buffer`.
    package func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { s in
            if s.dropped { return Self.endWithError }
            if !s.buffer.isEmpty {
                let n = s.buffer.read(into: buffer, max: max)
                s.taken += n
                return n
            }
            if s.finished { return Self.endOfStream }
            if s.closed { return Self.endWithError }
            s.suspended = true
            // Under the lock, so push() cannot resume before we are suspended.
            MHD_suspend_connection(connection)
            return 0
        }
    }

    /// Returns once fewer than `maxBuffered` bytes wait for the client;
    /// false if the stream ended meanwhile, or the client took none of them
    /// for `stallLimit` (it is dropped then). Looked at again after a pause
    /// that starts at a millisecond, so a client reading as fast as it can
    /// is fed at once, and grows to 50 ms while the client takes nothing,
    /// so a stalled one costs little until it is dropped.
    private func waitForRoom() async -> Bool {
        var taken = -1
        var since = ContinuousClock.now
        var pause = Duration.milliseconds(1)
        while true {
            let (room, open, nowTaken) = state.withLock { s in
                (s.buffer.count < maxBuffered, !s.closed && !s.finished && !s.dropped, s.taken)
            }
            guard open else { return false }
            if room { return true }
            if nowTaken != taken {
                (taken, since, pause) = (nowTaken, .now, .milliseconds(1))
            } else if ContinuousClock.now - since >= stallLimit {
                drop()
                return false
            }
            try? await Task.sleep(for: pause)
            if Task.isCancelled { return false }
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    private func push(_ chunk: Data) -> Bool {
        state.withLock { s in
            guard !s.closed, !s.finished, !s.dropped else { return false }
            s.buffer.append(chunk)
            s.pushed += chunk.count
            wake(&s)
            return true
        }
    }

    private func wake(_ s: inout State) {
        guard s.suspended, !s.closed else { return }
        s.suspended = false
        MHD_resume_connection(connection)
    }
}
