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
/// writer instead; once it has copied everything, the writer's next
/// transaction starts the WAL over from its beginning.
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
    }

    /// Opens its own connection to the database at `path` and starts its
    /// thread, which checkpoints whenever the WAL holds `wakeAt` frames.
    init(path: String, wakeAt: Int) throws(SQLiteError) {
        connection = try SQLiteConnection(path: path)
        self.wakeAt = wakeAt
        DetachedThread.start(name: "alertd-checkpoint") { [self] in loop() }
    }

    /// From the writer's WAL hook: the WAL holds `frames` after a commit.
    func walHolds(_ frames: Int) {
        guard frames >= wakeAt else { return }
        let signal = state.withLock { s in
            defer { s.requested = true }
            return !s.requested && !s.stopping
        }
        if signal { wake.signal() }
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
            let stop = state.withLock { s in
                s.requested = false
                return s.stopping
            }
            if stop { break }
            // Busy when the writer's own checkpoint is under way: the next
            // commit past the threshold wakes this again.
            connection.withLock { conn in try? conn.execute("PRAGMA wal_checkpoint(PASSIVE)") }
        }
        stopped.signal()
    }
}
