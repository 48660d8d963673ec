#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CurrentProcess {
    /// The login name of the real user, from the password database; nil
    /// when the user has none there. For naming who did something when
    /// `$USER` is unset, as under `sudo -i`, cron or systemd.
    public static var userName: String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let rc = getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result)
        guard rc == 0, result != nil, let name = entry.pw_name else { return nil }
        let text = String(cString: name)
        return text.isEmpty ? nil : text
    }

    /// The effective user id: whose files this process may act on as owner.
    package static var effectiveUserID: UInt32 { UInt32(geteuid()) }
}
