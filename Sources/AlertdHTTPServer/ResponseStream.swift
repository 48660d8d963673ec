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
/// thread, and the next chunk resumes it. The buffer is bounded: with
/// `maxBuffered` bytes unsent the task takes no more from the stream, whose
/// own buffering policy then holds its producer back, until the client has
/// read half of them. So a client far behind (catching up on a long history)
/// is fed as fast as it reads, however slowly, and one that never reads
/// costs a bounded amount of memory until its connection's idle timeout
/// (``HTTPServerConfiguration/streamIdleTimeout``) ends it. Dropping the
/// client as soon as the bound was passed cut clients that were reading,
/// whenever the stream's producer was faster.
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
        /// Ended at once, its buffer let go (``drop()``).
        package var dropped = false
        package var producer: Task<Void, Never>?
        /// The producer, waiting for the client to read (``waitForRoom()``).
        package var roomWaiter: CheckedContinuation<Void, Never>?
        /// Every byte the stream has buffered, for the trim after it.
        package var pushed = 0

        var ended: Bool { closed || finished || dropped }
    }

    /// libmicrohttpd's "end of stream" and "error" returns (the C macros carry casts Swift cannot import).
    package static let endOfStream = -1
    package static let endWithError = -2

    private let connection: OpaquePointer
    private let core: MHDServerCore
    /// Unsent bytes past which no more are taken from the stream (one chunk may go past it).
    private let maxBuffered: Int
    private let state = Mutex(State())

    package init(connection: OpaquePointer, core: MHDServerCore, maxBuffered: Int) {
        self.connection = connection
        self.core = core
        self.maxBuffered = maxBuffered
    }

    /// Starts copying `stream` into the buffer.
    package func start(_ stream: AsyncStream<Data>) {
        let producer = Task { [self] in
            var chunks = stream.makeAsyncIterator()
            // Room first, then the next chunk: none is held while the client catches up.
            while await waitForRoom(), let chunk = await chunks.next() {
                guard chunk.isEmpty || push(chunk) else { break }
            }
            // Leaving the stream alone would leave whoever feeds it feeding
            // it: a `next()` in a cancelled task ends the stream, which runs
            // its `onTermination` and stops them.
            withUnsafeCurrentTask { $0?.cancel() }
            _ = await chunks.next()
            finish()
        }
        state.withLock { s in
            if s.closed { producer.cancel() } else { s.producer = producer }
        }
    }

    /// Ends the body after what is buffered; used when the stream finishes and when the server stops.
    package func finish() {
        let waiter = state.withLock { s in
            s.finished = true
            wake(&s)
            return s.roomWaiter.take()
        }
        waiter?.resume()
    }

    /// libmicrohttpd released the response: stop the producer. What the
    /// stream moved counts towards handing freed memory back to the kernel
    /// once such work stops: 512 stalled event streams left the idle daemon
    /// at 200 MB.
    package func close() {
        let (producer, pushed, waiter) = state.withLock { s in
            s.closed = true
            s.buffer.removeAll()
            return (s.producer, s.pushed, s.roomWaiter.take())
        }
        waiter?.resume()
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

    /// Ends the stream now, its buffer let go: for a client already gone.
    package func drop() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard !s.closed else { return nil }
            s.dropped = true
            s.buffer.removeAll()
            wake(&s)
            return s.roomWaiter.take()
        }
        waiter?.resume()
    }

    /// The content-reader callback's work: copy up to `max` bytes into `buffer`.
    package func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        let (n, waiter) = state.withLock { s -> (Int, CheckedContinuation<Void, Never>?) in
            if s.dropped { return (Self.endWithError, nil) }
            if !s.buffer.isEmpty {
                let n = s.buffer.read(into: buffer, max: max)
                // Half read: the producer fills it again, a few chunks at a wake-up.
                return (n, s.buffer.count <= maxBuffered / 2 ? s.roomWaiter.take() : nil)
            }
            if s.finished { return (Self.endOfStream, nil) }
            if s.closed { return (Self.endWithError, nil) }
            s.suspended = true
            // Under the lock, so push() cannot resume before we are suspended.
            MHD_suspend_connection(connection)
            return (0, nil)
        }
        waiter?.resume()
        return n
    }

    /// Returns once fewer than `maxBuffered` bytes wait for the client
    /// (woken by ``read(into:max:)`` once it has taken half of them); false
    /// once the stream has ended or the task is cancelled.
    private func waitForRoom() async -> Bool {
        while true {
            let room: Bool? = state.withLock { s in
                s.ended ? false : s.buffer.count < maxBuffered ? true : nil
            }
            if let room { return room }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { s in
                        if s.ended || s.buffer.count < maxBuffered || Task.isCancelled { return true }
                        s.roomWaiter = c
                        return false
                    }
                    if now { c.resume() }
                }
            } onCancel: {
                state.withLock { $0.roomWaiter.take() }?.resume()
            }
            if Task.isCancelled { return false }
        }
    }

    private func push(_ chunk: Data) -> Bool {
        state.withLock { s in
            guard !s.ended else { return false }
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
