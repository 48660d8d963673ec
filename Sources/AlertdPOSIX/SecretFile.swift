#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoundationEssentials
import AlertModel

/// A secret kept in a file of its own: an API token, a webhook signing
/// secret, the action-link key. Every place that takes a `*_file` secret
/// reads it here, so all of them fail the same way and hold the file to the
/// same rule, as ssh does with private keys: a file that group or others
/// may write, or that every user may read, is refused. Group read is
/// allowed, so a secret can be shared with the group a service runs in
/// (`root:alertd`, mode 0640).
public enum SecretFile {
    /// Secrets are short; this only stops a misconfigured path (a device,
    /// a huge file) from being read whole into memory.
    private static let maximumSize = 1 << 20

    /// The secret in `path`, with the trailing newline editors add trimmed.
    public static func read(_ path: String) throws(SecretFileError) -> String {
        let secret = String(decoding: try contents(path), as: UTF8.self).trimmingWhitespace()
        guard !secret.isEmpty else { throw SecretFileError(path: path, problem: .empty) }
        return secret
    }

    /// The file's bytes as they are, for binary secrets such as a key.
    /// The permissions checked are those of the file read: the descriptor
    /// is checked, not the path, so a swap in between changes nothing.
    public static func contents(_ path: String) throws(SecretFileError) -> [UInt8] {
        // Without blocking, and only a regular file: a FIFO in its place
        // held a reload in open(2) for good, and SIGTERM behind it.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw SecretFileError(path: path, problem: errno == ENOENT ? .missing : .unreadable)
        }
        defer { close(fd) }
        guard case .success(let status) = FileStatus.of(descriptor: fd) else {
            throw SecretFileError(path: path, problem: .unreadable)
        }
        guard status.kind == .regular else { throw SecretFileError(path: path, problem: .notRegularFile) }
        if status.isWritableByOthers {
            throw SecretFileError(path: path, problem: .writableByOthers, permissions: status.permissions)
        }
        if status.isReadableByEveryone {
            throw SecretFileError(path: path, problem: .readableByEveryone, permissions: status.permissions)
        }
        switch FileDescriptorReader.readToEnd(fd, limit: maximumSize) {
        case .success(let bytes): return bytes
        case .failure(.tooLarge): throw SecretFileError(path: path, problem: .tooLarge)
        case .failure(.failed), .failure(.notRegularFile): throw SecretFileError(path: path, problem: .unreadable)
        }
    }
}

/// Why a secret file could not be used.
public struct SecretFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: String, Sendable {
        case missing
        case unreadable
        case empty
        case tooLarge = "too_large"
        /// A directory, a FIFO or a device: nothing to read a secret from.
        case notRegularFile = "not_regular_file"
        /// Group or others may write it, so someone else could replace the secret.
        case writableByOthers = "writable_by_others"
        /// Every user may read it, so the secret is no secret.
        case readableByEveryone = "readable_by_everyone"
    }

    public let path: String
    public let problem: Problem
    /// The file's permission bits, when they are the problem.
    public let permissions: UInt32?

    public init(path: String, problem: Problem, permissions: UInt32? = nil) {
        self.path = path
        self.problem = problem
        self.permissions = permissions
    }

    /// A sentence a person can act on.
    public var message: String {
        let mode = permissions.map { " (mode \(FileMode.octal($0)))" } ?? ""
        return switch problem {
        case .missing: "the secret file \(path) does not exist\(Self.base(of: path)); create it or fix the path"
        case .unreadable: "cannot read the secret file \(path); check that it exists and that this user may read it"
        case .empty: "the secret file \(path) is empty"
        case .tooLarge: "the secret file \(path) is larger than 1 MiB; point at the file holding only the secret"
        case .notRegularFile: "the secret file \(path) is not a regular file (a directory, a FIFO or a device); point at the file holding the secret"
        case .writableByOthers:
            "the secret file \(path) may be written by group or others\(mode), so someone else could replace the secret; make it writable by its owner only (chmod go-w \(path))"
        case .readableByEveryone:
            "the secret file \(path) may be read by every user\(mode); make it private (chmod 600 \(path), or 640 with a group alertd runs in)"
        }
    }

    public var description: String { message }

    /// Where a relative path was looked for: under systemd the working
    /// directory is `/`, not the one the path was written in.
    private static func base(of path: String) -> String {
        guard !path.hasPrefix("/"), let cwd = CurrentProcess.workingDirectory else { return "" }
        return " (looked for in the working directory, \(cwd))"
    }
}
