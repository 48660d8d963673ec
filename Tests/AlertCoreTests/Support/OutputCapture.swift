import Foundation
import Synchronization
@testable import AlertdSQLite
@testable import AlertdCommandLine

/// Collects what a command prints, for in-process command tests.
final class OutputCapture: Sendable {
    private let out = Mutex("")
    private let err = Mutex("")

    var output: String { out.withLock { $0 } }
    var errorOutput: String { err.withLock { $0 } }

    func context(environment: [String: String] = [:], input: String? = nil) -> CommandContext {
        context(environment: environment, bytes: input.map { Data($0.utf8) })
    }

    /// A context whose standard input holds `bytes`, UTF-8 or not.
    func context(environment: [String: String] = [:], bytes: Data?) -> CommandContext {
        CommandContext(
            environment: environment,
            output: { text in self.out.withLock { $0 += text } },
            errorOutput: { text in self.err.withLock { $0 += text } },
            readInput: { bytes })
    }
}
