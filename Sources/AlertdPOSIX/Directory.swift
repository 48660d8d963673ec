#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Directories by path, with `mkdir(2)`; the errors are `errno` values, so
/// a message says why in the C library's words ("Permission denied").
package enum Directory {
    /// Creates `path` and any missing parents (`mkdir -p`), each with `mode`
    /// (less the umask). A directory already there is not an error.
    package static func create(_ path: String, mode: UInt32) -> Result<Void, Errno> {
        if mkdir(path, mode_t(mode)) == 0 { return .success(()) }
        switch errno {
        case EEXIST:
            if case .success(let status) = FileStatus.of(path), status.kind == .directory { return .success(()) }
            return .failure(.fileExists)
        case ENOENT:
            let parent = parent(of: path)
            guard parent != path, !parent.isEmpty else { return .failure(.noSuchFile) }
            if case .failure(let error) = create(parent, mode: mode) { return .failure(error) }
            return mkdir(path, mode_t(mode)) == 0 || errno == EEXIST ? .success(()) : .failure(.current)
        default:
            return .failure(.current)
        }
    }

    /// Whether this process can create entries in the directory `path`,
    /// found by creating one (`mkdtemp(3)`) and removing it: `access(2)`
    /// says yes to root everywhere, /proc and /sys included, where `mkdir`
    /// then fails.
    package static func probeCreation(in path: String) -> Result<Void, Errno> {
        var template = Array((path.hasSuffix("/") ? path : path + "/").utf8CString.dropLast())
        template += Array(".alertd-check-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard mkdtemp(buffer.baseAddress!) != nil else { return false }
            rmdir(buffer.baseAddress!)
            return true
        }
        return made ? .success(()) : .failure(.current)
    }

    /// The names in `path`, `.` and `..` left out (`readdir(3)`).
    package static func entries(of path: String) -> Result<[String], Errno> {
        guard let dir = opendir(path) else { return .failure(.current) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names.sorted())
    }

    /// The directory part of `path`, as `dirname` would give it but with ""
    /// for a bare name: `/a/b` → `/a`, `/a` → `/`, `a/b/` → `a`, `a` → "".
    package static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        if slash == trimmed.startIndex { return "/" }
        var parent = trimmed[..<slash]
        while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
        return String(parent)
    }
}
