import Foundation
import Testing

/// The executables `swift build` put next to the test bundle, for tests
/// that run the real binaries.
enum TestBinaries {
    /// What a finished process left behind.
    struct Result: Sendable {
        let exitCode: Int32
        let stdout: String
        let stderr: String
    }

    struct Missing: Error, CustomStringConvertible {
        let name: String
        let searched: [String]
        var description: String {
            "the \(name) binary is not built; run `swift build --build-tests` first (looked in: \(searched.joined(separator: ", ")))"
        }
    }

    /// The built `alertctl`.
    static var alertctl: String {
        get throws { try path(of: "alertctl") }
    }

    /// The built executable `name`, from the directory holding the test bundle.
    static func path(of name: String) throws -> String {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0], relativeTo: cwd).standardizedFileURL
        let candidates = [
            argv0.deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ].map { $0.appendingPathComponent(name).path }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Missing(name: name, searched: candidates)
        }
        return found
    }

    /// Runs `executable` with `arguments`, feeding it `stdin`, and waits for
    /// it. The environment is this process's, without variables that would
    /// change alertctl's output, plus `environment`.
    static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]
    ) async throws -> Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("out"), errURL = dir.appendingPathComponent("err")
        let inURL = dir.appendingPathComponent("in")
        // Files, not pipes: nothing can fill up and block the child.
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        try Data((stdin ?? "").utf8).write(to: inURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for name in ["ALERTD_TEMPLATES", "COLUMNS", "NO_COLOR"] { env[name] = nil }
        process.environment = env.merging(environment) { $1 }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let input = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        try out.close()
        try err.close()
        try input.close()
        return Result(
            exitCode: process.terminationStatus,
            stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8))
    }

    /// Runs the built `alertctl`.
    static func alertctl(_ arguments: String..., stdin: String? = nil, environment: [String: String] = [:]) async throws -> Result {
        try await run(try alertctl, arguments, stdin: stdin, environment: environment)
    }
}
