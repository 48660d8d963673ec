import FoundationEssentials
import AlertdHTTP
import AlertModel

/// The one request a service presenter makes for an attempt: built by the
/// type from the alert, sent by ``HTTPServicePresenter``, or shown by
/// `alertctl render`.
public struct HTTPServiceRequest: Sendable, Equatable {
    public var method: String
    public var url: String
    public var headers: HTTPHeaders
    public var body: Data

    public init(method: String = "POST", url: String, headers: HTTPHeaders = [:], body: Data) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A JSON request: `json` written with sorted keys, and its content type.
    public init(method: String = "POST", url: String, headers: HTTPHeaders = [:], json: [String: Any]) {
        var headers = headers
        headers.set("Content-Type", "application/json")
        self.init(method: method, url: url, headers: headers, body: Self.encode(json))
    }

    /// The bytes of a JSON object the types build from strings, numbers,
    /// booleans, arrays and objects.
    public static func encode(_ json: [String: Any]) -> Data {
        Data(JSONObject.text(of: json).utf8)
    }

    /// `base` (a server's URL, with or without a trailing `/`) and `path`
    /// (starting with `/`) as one URL.
    public static func url(_ base: String, _ path: String) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + path
    }

    /// `text` as one path segment: everything but unreserved characters
    /// percent-encoded (a Matrix room id's `!` and `:`, a `/`).
    public static func pathSegment(_ text: String) -> String {
        HTTPRequestTarget.percentEncode(text)
    }

    /// The request as `alertctl render` shows it; a login in the URL (an
    /// ntfy or Gotify server's `user:password@`) as `***`, as errors show it.
    public var preview: PresenterPreview {
        PresenterPreview(head: ["\(method) \(URLRedaction.redactingUserInfo(url))"] + headers.map { "\($0.name): \($0.value)" },
                         body: PresenterPreview.readable(body))
    }
}
