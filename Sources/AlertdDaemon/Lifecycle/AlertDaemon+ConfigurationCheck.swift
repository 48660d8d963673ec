import AlertdLogging

extension AlertDaemon {
    /// What building `config` as a start would, binding and starting
    /// nothing, finds beyond `read`, the problems reading its file found: a
    /// secret file gone, a command that is not there. Said of the file too:
    /// most name one of its keys, and the rest what it led to. Building
    /// meets again some of what reading found (a secret under a shorter
    /// path, `actions.allow` under the same): said once, where the key is
    /// named in full.
    static func problemsBuilding(_ config: DaemonConfiguration, beyond read: [String], logger: Logger) async -> [String] {
        do throws(DaemonBuildError) {
            _ = try await open(config, mode: .check, logger: logger)
            return []
        } catch {
            let said = read.map { split(Substring($0)) }
            return error.problems.flatMap { $0.message.split(separator: "\n") }
                .filter { line in
                    let (path, core) = split(line)
                    // The same words of the same key: its path's parts all in the key's.
                    return !said.contains { $0.core == core && path.allSatisfy($0.path.joined(separator: ".").contains) }
                }
                .map(String.init)
        }
    }

    /// A problem as the key path it opens with, in parts (`actions`, `[0]`
    /// of `actions: [0]: `), and the words after it.
    private static func split(_ line: Substring) -> (path: [Substring], core: Substring) {
        var rest = line, path: [Substring] = []
        while let colon = rest.firstIndex(of: ":"), colon != rest.startIndex, !rest[..<colon].contains(" "),
              rest[colon...].dropFirst().first == " " {
            path.append(rest[..<colon])
            rest = rest[colon...].dropFirst(2)
        }
        return (path, rest)
    }
}

extension ConfigurationError {
    /// This error with the problems building what could be read finds
    /// added (``AlertDaemon/problemsBuilding(_:beyond:logger:)``), as
    /// `--check-config` lists them: a start or a reload that named only the
    /// first kind had the operator fix one, try again, and fail on the next.
    func withProblemsBuildingFinds(logger: Logger) async -> ConfigurationError {
        guard let readSoFar else { return self }
        let more = await AlertDaemon.problemsBuilding(readSoFar, beyond: problems, logger: logger)
        return more.isEmpty ? self : ConfigurationError(source: source, problems: problems + more, readSoFar: readSoFar)
    }
}
