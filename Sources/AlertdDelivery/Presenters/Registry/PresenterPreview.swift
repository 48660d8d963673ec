import FoundationEssentials
import AlertModel

/// What a presenter would send, for a person to read (`alertctl render`):
/// where it goes and how, then the body. Secrets are placeholders.
public struct PresenterPreview: Sendable, Equatable {
    /// The request line or envelope, then headers: `POST https://…`,
    /// `Content-Type: application/json`.
    public var head: [String]
    /// The body as text: JSON pretty-printed, a MIME message, a program's input.
    public var body: String

    public init(head: [String], body: String) {
        self.head = head
        self.body = body
    }

    /// Head, a blank line, body.
    public var text: String {
        head.joined(separator: "\n") + "\n\n" + body + (body.hasSuffix("\n") ? "" : "\n")
    }

    /// `data` as indented JSON with sorted keys when it is JSON, else as text.
    public static func readable(_ data: Data) -> String {
        if let value = try? StrictJSON.parse(data) {
            return JSONObject.text(of: value, pretty: true)
        }
        return String(decoding: data, as: UTF8.self)
    }
}
