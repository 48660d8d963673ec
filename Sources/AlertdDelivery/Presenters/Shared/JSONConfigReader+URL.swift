import FoundationEssentials
import AlertModel

extension JSONConfigReader {
    /// A URL setting with one of `schemes` and a host, or nil after
    /// reporting why not. `need` says what it is for when it is missing.
    public func url(
        _ object: [String: Any], _ key: String, at path: String, schemes: [String] = ["http", "https"], required: Bool, need: String = ""
    ) -> String? {
        guard let text = string(object, key, at: path) else {
            if required && object[key] == nil {
                problem(join(path, key), "is required" + (need.isEmpty ? "" : ": \(need)"))
            }
            return nil
        }
        return checkedURL(text, at: join(path, key), schemes: schemes)
    }

    /// A server's base URL, to which a presenter adds its API's path,
    /// `appends` (`/message`): as ``url(_:_:at:schemes:required:need:)``,
    /// and without a query or fragment, which would come before that path
    /// (`/gotify?x=1/message`), nor ending in `suffix` (by default
    /// `appends`), which would be there twice.
    public func baseURL(
        _ object: [String: Any], _ key: String, at path: String, appends: String, suffix: String? = nil, required: Bool, need: String = ""
    ) -> String? {
        guard let text = url(object, key, at: path, required: required, need: need) else { return nil }
        guard let parts = URLComponents(string: text), parts.query == nil, parts.fragment == nil else {
            problem(join(path, key), "must be the server's base URL, without a ?query or #fragment: alertd adds \(appends) to it")
            return nil
        }
        let end = suffix ?? appends
        let trimmed = parts.path.hasSuffix("/") ? String(parts.path.dropLast()) : parts.path
        if !end.isEmpty, trimmed.hasSuffix(end) {
            problem(join(path, key), "must be the server's base URL: alertd adds \(appends) to it, and this one ends in \(end) already")
            return nil
        }
        return text
    }

    /// `text` if it is a URL with one of `schemes` and a host, or nil after
    /// reporting the problem at `path`.
    public func checkedURL(_ text: String, at path: String, schemes: [String] = ["http", "https"]) -> String? {
        guard Self.isURL(text, schemes: schemes) else {
            let list = schemes.map { $0 + "://" }.joined(separator: " or ")
            // The value is not echoed: service URLs are often credentials.
            let blank = Self.hasBlanks(text) ? ", with no spaces or control characters (write a space as %20)" : ""
            problem(path, "must be a \(list) URL with a host\(blank)")
            return nil
        }
        return text
    }

    /// Whether `text` is a URL with one of `schemes` and a host. One with a
    /// space or control character in it is not: URLComponents takes it,
    /// libcurl refuses it at every delivery.
    public static func isURL(_ text: String, schemes: [String] = ["http", "https"]) -> Bool {
        guard !hasBlanks(text), let u = URLComponents(string: text), let scheme = u.scheme?.lowercased() else { return false }
        return schemes.contains(scheme) && u.host?.isEmpty == false
    }

    private static func hasBlanks(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F || $0.properties.isWhitespace }
    }
}
