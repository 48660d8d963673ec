#if canImport(Glibc)
import Glibc
#endif

/// The processes below one, as /proc has them at the moment of the look:
/// each found by its parent, the fourth field of `/proc/<pid>/stat`.
package enum ProcessTree {
    /// Every living descendant of `pid`. One whose parent had exited before
    /// the look is not among them: it is init's (or a subreaper's) now.
    package static func descendants(of pid: pid_t) -> [pid_t] {
        guard case .success(let names) = Directory.entries(of: "/proc") else { return [] }
        var children: [pid_t: [pid_t]] = [:]
        for name in names {
            guard let child = pid_t(name), let parent = parent(of: child) else { continue }
            children[parent, default: []].append(child)
        }
        var found: [pid_t] = []
        var below = [pid]
        while let next = below.popLast() {
            for child in children[next] ?? [] where !found.contains(child) {
                found.append(child)
                below.append(child)
            }
        }
        return found
    }

    /// The parent of `pid`, or nil when it is gone. The name before it is
    /// in parentheses and may hold spaces and parentheses of its own: the
    /// fields are read after the last `)`.
    static func parent(of pid: pid_t) -> pid_t? {
        guard case .success(let stat) = FileDescriptorReader.readFile("/proc/\(pid)/stat"),
              let nameEnd = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = stat[(nameEnd + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2 else { return nil }
        return pid_t(String(decoding: fields[1], as: UTF8.self))
    }
}
