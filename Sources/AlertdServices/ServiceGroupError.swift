/// Why a ``ServiceGroup`` stopped other than by being asked to. The group
/// has stopped every service it started by the time this is thrown.
public struct ServiceGroupError: Error, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A service's `start()` threw; the services after it never started.
        public static let startFailed = Code(rawValue: "service_start_failed")
        /// A service's `run()` threw.
        public static let runFailed = Code(rawValue: "service_failed")
        /// A service's `run()` returned before anyone asked it to stop.
        public static let exitedEarly = Code(rawValue: "service_exited_early")
        /// `run()` was called on a group that had already run.
        public static let alreadyRun = Code(rawValue: "service_group_already_run")
    }

    public let code: Code
    /// The service at fault, if one is.
    public let service: String?
    /// What the service threw, if it threw.
    public let underlying: (any Error)?

    public init(code: Code, service: String?, underlying: (any Error)? = nil) {
        self.code = code
        self.service = service
        self.underlying = underlying
    }

    /// One sentence saying what happened and where to look.
    public var message: String {
        let name = service ?? "?"
        let cause = underlying.map { "\($0)" } ?? ""
        return switch code {
        case .startFailed: "The \(name) service could not start: \(cause)"
        case .runFailed: "The \(name) service failed: \(cause); the others were stopped. See the log for what led to it."
        case .exitedEarly: "The \(name) service stopped on its own; the others were stopped too. See the log for why."
        case .alreadyRun: "A service group runs once; make a new one to run the services again."
        default: "The service group stopped (\(code.rawValue))."
        }
    }

    public var description: String { message }
}
