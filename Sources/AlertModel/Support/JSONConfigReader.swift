import FoundationEssentials

/// Reads a ``StrictJSON`` tree strictly: unknown keys and wrong types are
/// problems, recorded with their path, and reading carries on so that every
/// problem in a file is reported in one go.
public final class JSONConfigReader {
    public init() {}

    public private(set) var problems: [String] = []

    public func problem(_ path: String, _ message: String) {
        problems.append(path.isEmpty ? message : "\(path): \(message)")
    }

    /// The object at `path`, after checking its keys against `allowed`,
    /// without its keys set to `null`: a setting set to null is one left out.
    /// Only settings objects come through here; in a map of data (labels,
    /// headers) a null stays a value, and is refused as one.
    public func object(_ value: Any?, at path: String, allowed: [String]) -> [String: Any]? {
        guard let value, !StrictJSON.isNull(value) else { return nil }
        guard let obj = (value as? [String: Any])?.filter({ !StrictJSON.isNull($0.value) }) else {
            problem(path, "must be an object")
            return nil
        }
        for key in obj.keys.sorted() where !allowed.contains(key) {
            let suggestion = key.closest(in: allowed).map { " (did you mean \"\($0)\"?)" } ?? ""
            problem(join(path, key), "unknown key\(suggestion); allowed here: \(allowed.joined(separator: ", "))")
        }
        return obj
    }

    public func string(_ obj: [String: Any], _ key: String, at path: String) -> String? {
        guard let v = obj[key], !StrictJSON.isNull(v) else { return nil }
        guard let s = v as? String else { problem(join(path, key), "must be a string"); return nil }
        return s
    }

    public func bool(_ obj: [String: Any], _ key: String, at path: String) -> Bool? {
        guard let v = obj[key], !StrictJSON.isNull(v) else { return nil }
        guard let b = v as? Bool else { problem(join(path, key), "must be true or false"); return nil }
        return b
    }

    public func int(_ obj: [String: Any], _ key: String, at path: String, range: ClosedRange<Int>) -> Int? {
        guard let v = obj[key], !StrictJSON.isNull(v) else { return nil }
        guard let n = StrictJSON.wholeNumber(v) else {
            problem(join(path, key), "must be a whole number")
            return nil
        }
        guard range.contains(n) else {
            problem(join(path, key), "must be between \(range.lowerBound) and \(range.upperBound), got \(n)")
            return nil
        }
        return n
    }

    public func double(_ obj: [String: Any], _ key: String, at path: String, range: ClosedRange<Double>) -> Double? {
        guard let v = obj[key], !StrictJSON.isNull(v) else { return nil }
        guard let n = StrictJSON.number(v) else { problem(join(path, key), "must be a number"); return nil }
        guard range.contains(n) else {
            problem(join(path, key), "must be between \(range.lowerBound) and \(range.upperBound)")
            return nil
        }
        return n
    }

    /// A duration such as `"1s"`, `"10m"` or a number of seconds.
    /// `word` names the one other string the setting takes (`"forever"`),
    /// for the message about a value that is neither.
    public func duration(_ obj: [String: Any], _ key: String, at path: String, allowZero: Bool = false, orWord word: String? = nil) -> Duration? {
        guard let v = obj[key], !StrictJSON.isNull(v) else { return nil }
        let read: Duration
        if let s = v as? String {
            guard let d = Self.parseDuration(s) else {
                let neither = word.map { " or \"\($0)\"" } ?? ""
                problem(join(path, key), "`\(s)` is not a duration\(neither); write e.g. \"500ms\", \"1s\", \"10m\", \"24h\"")
                return nil
            }
            guard allowZero || d > .zero else {
                problem(join(path, key), "must be more than zero")
                return nil
            }
            read = d
        } else if let n = StrictJSON.number(v), n >= 0, allowZero || n > 0 {
            // Compared before converting: 1e300 seconds is no Int64 of milliseconds.
            read = n * 1000 <= Double(Duration.century.milliseconds) ? .milliseconds(Int64((n * 1000).rounded())) : Duration.century + .seconds(1)
        } else {
            problem(join(path, key), "must be a duration such as \"1s\" or \"10m\"")
            return nil
        }
        guard read <= Duration.century else {
            problem(join(path, key), "must be at most 100 years (36500d)")
            return nil
        }
        return read
    }

    /// A list of strings; `hint`, when the value is not a list, says how
    /// to write what was likely meant.
    public func strings(_ obj: [String: Any], _ key: String, at path: String, hint: String? = nil) -> [String]? {
        guard let v = obj[key], !StrictJSON.isNull(v) else { return nil }
        guard let list = v as? [Any] else { problem(join(path, key), "must be a list of strings" + (hint.map { "; \($0)" } ?? "")); return nil }
        var out: [String] = []
        for (i, item) in list.enumerated() {
            guard let s = item as? String else { problem("\(join(path, key))[\(i)]", "must be a string"); continue }
            out.append(s)
        }
        return out
    }

    public func stringMap(_ obj: [String: Any], _ key: String, at path: String) -> [String: String]? {
        guard let v = obj[key], !StrictJSON.isNull(v) else { return nil }
        guard let map = v as? [String: Any] else { problem(join(path, key), "must be an object of strings"); return nil }
        var out: [String: String] = [:]
        for (k, item) in map.sorted(by: { $0.key < $1.key }) {
            guard let s = item as? String else { problem(join(join(path, key), k), "must be a string"); continue }
            out[k] = s
        }
        return out
    }

    public func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// `500ms`, `1s`, `1m30s`, `2h`, `1d`.
    package static func parseDuration(_ text: String) -> Duration? {
        if text.hasSuffix("ms"), let n = Int64(text.dropLast(2)), n >= 0 { return .milliseconds(n) }
        return AlertDuration(parsing: text).map { .seconds($0.seconds) }
    }
}
