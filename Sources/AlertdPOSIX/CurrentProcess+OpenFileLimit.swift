#if canImport(Glibc)
import Glibc
#endif

extension CurrentProcess {
    /// Raises the soft limit on open files to the hard one and returns the
    /// soft limit then in force. systemd starts services at a soft limit of
    /// 1,024 (for `select(2)`'s sake; the hard one is far higher), which
    /// half-open connections to one listener could use up, leaving none for
    /// deliveries, the store or child processes. alertd waits with `poll`
    /// and `epoll` only, which take any descriptor.
    @discardableResult
    public static func raiseOpenFileLimit() -> Int {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
