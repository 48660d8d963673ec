import Foundation

/// A secret kept in a file of its own: an API token, a webhook signing
/// secret. Read whole, with the trailing newline editors add trimmed. Every
/// place that takes a `*_file` secret reads it here, so all of them fail
/// the same way.
public enum SecretFile {
    /// The secret in `path`.
    public static func read(_ path: String) throws(SecretFileError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw SecretFileError(path: path, problem: .unreadable) }
        let secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty else { throw SecretFileError(path: path, problem: .empty) }
        return secret
    }
}

/// Why a secret file could not be used.
public struct SecretFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: String, Sendable {
        case unreadable
        case empty
    }

    public let path: String
    public let problem: Problem

    /// A sentence a person can act on.
    public var message: String {
        switch problem {
        case .unreadable: "cannot read the secret file \(path); check that it exists and that this user may read it"
        case .empty: "the secret file \(path) is empty"
        }
    }

    public var description: String { message }
}
