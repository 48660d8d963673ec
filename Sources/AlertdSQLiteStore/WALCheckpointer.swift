import AlertdPOSIX
import Dispatch
import Synchronization
import AlertdSQLite

/// Copies the WAL's frames into the database file on a thread and a
/// connection of its own, so that no commit waits for a checkpoint.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its
/// threshold, on the writer's thread: every job queued behind that commit
/// waits while thousands of pages are copied and the database file is
/// fsynced. A `PASSIVE` checkpoint from another connection runs beside the
/// writer instead.
///
/// The WAL starts over from its beginning only at a write transaction that
/// finds every frame copied, and under steady writes the writer always
/// commits again before a checkpoint beside it ends. So once a pass is done
/// the writer copies, right after its next commit, the few frames that came
/// in meanwhile, and its next transaction starts the WAL over. Left to the
/// checkpointer alone, the WAL grew to the writer's fallback (64 MB) and
/// the checkpointer ran after nearly every commit, each pass two fsyncs:
/// with four clients posting one alert each, 0.45 of its fsyncs per alert.
final class WALCheckpointer: Sendable {
    /// Frames at which the writer checkpoints by itself, the checkpointer
    /// having fallen behind: 64 MB of WAL.
    static let writerCheckpointsAt = 16_000

    private let connection: SQLiteConnection
    private let wakeAt: Int
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    private struct State {
        var requested = false
        var stopping = false
        /// A pass has ended since the WAL last started over.
        var passEnded = false
    }

    /// Opens its own connection to the database at `path` and starts its
    /// thread, which checkpoints whenever the WAL holds `wakeAt` frames.
    init(path: String, wakeAt: Int) throws(SQLiteError) {
        connection = try SQLiteConnection(path: path)
        self.wakeAt = wakeAt
        DetachedThread.start(name: "alertd-checkpoint") { [self] in loop() }
    }

    /// From the writer's WAL hook: the WAL holds `frames` after a commit.
    /// True when the writer should checkpoint now, a pass having ended: it
    /// copies what came in during the pass, and the WAL starts over.
    func walHolds(_ frames: Int) -> Bool {
        enum Next { case nothing, wake, writerFinishes }
        let next: Next = state.withLock { s in
            if frames < wakeAt {
                s.passEnded = false
                return .nothing
            }
            if s.passEnded {
                s.passEnded = false
                return .writerFinishes
            }
            if s.requested || s.stopping { return .nothing }
            s.requested = true
            return .wake
        }
        if next == .wake { wake.signal() }
        return next == .writerFinishes
    }

    /// Lets a checkpoint under way finish, then ends the thread. Idempotent.
    func stop() {
        let wasRunning = state.withLock { s in
            defer { s.stopping = true }
            return !s.stopping
        }
        guard wasRunning else { return }
        wake.signal()
        stopped.wait()
    }

    private func loop() {
        while true {
            wake.wait()
            if state.withLock({ $0.stopping }) { break }
            // Busy when the writer's own checkpoint is under way: the next
            // commit past the threshold wakes this again.
            connection.withLock { conn in try? conn.execute("PRAGMA wal_checkpoint(PASSIVE)") }
            state.withLock { s in
                s.requested = false
                s.passEnded = true
            }
        }
        stopped.signal()
    }
}
