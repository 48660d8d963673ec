import Foundation
import Synchronization

/// One thread that lives as long as the test process, to start daemons on.
/// `setpriv --pdeathsig` kills a daemon when the *thread* that started it
/// exits, and the cooperative pool lets its threads exit after a few idle
/// seconds, as when a test waits in a blocking read on a thread of its own;
/// that killed daemons in the middle of tests.
final class SpawningThread: Sendable {
    static let shared = SpawningThread()

    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let wake = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            while true {
                wake.wait()
                for job in jobs.withLock({ j -> [@Sendable () -> Void] in defer { j = [] }; return j }) { job() }
            }
        }
        thread.name = "test-spawner"
        thread.start()
    }

    /// Runs `work` on the thread and waits for it.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        jobs.withLock { $0.append { result.withLock { $0 = Result(catching: work) }; done.signal() } }
        wake.signal()
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
