import CCurl

/// A libcurl result code with its name (`CURLE_COULDNT_CONNECT`), libcurl's
/// generic text for it, and the transfer's own error text when there is one.
public struct CurlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `CURLcode` value.
    public let code: Int
    /// The constant's name, e.g. `CURLE_OPERATION_TIMEDOUT`.
    public let name: String
    /// libcurl's text for the code (`curl_easy_strerror`).
    public let message: String
    /// The transfer's error buffer (`CURLOPT_ERRORBUFFER`), often more precise; may be empty.
    public let detail: String

    package init(_ code: CURLcode, detail: String = "") {
        self.code = Int(code.rawValue)
        self.name = Self.name(of: code)
        self.message = String(cString: alertd_curl_easy_strerror(code))
        self.detail = detail
    }

    package init(multi code: CURLMcode) {
        self.code = Int(code.rawValue)
        self.name = "CURLM_\(code.rawValue)"
        self.message = String(cString: alertd_curl_multi_strerror(code))
        self.detail = ""
    }

    public var description: String { "\(name): \(detail.isEmpty ? message : detail)" }

    private static func name(of code: CURLcode) -> String {
        switch code {
        case CURLE_OK: "CURLE_OK"
        case CURLE_UNSUPPORTED_PROTOCOL: "CURLE_UNSUPPORTED_PROTOCOL"
        case CURLE_FAILED_INIT: "CURLE_FAILED_INIT"
        case CURLE_URL_MALFORMAT: "CURLE_URL_MALFORMAT"
        case CURLE_COULDNT_RESOLVE_PROXY: "CURLE_COULDNT_RESOLVE_PROXY"
        case CURLE_COULDNT_RESOLVE_HOST: "CURLE_COULDNT_RESOLVE_HOST"
        case CURLE_COULDNT_CONNECT: "CURLE_COULDNT_CONNECT"
        case CURLE_WEIRD_SERVER_REPLY: "CURLE_WEIRD_SERVER_REPLY"
        case CURLE_HTTP2: "CURLE_HTTP2"
        case CURLE_PARTIAL_FILE: "CURLE_PARTIAL_FILE"
        case CURLE_HTTP_RETURNED_ERROR: "CURLE_HTTP_RETURNED_ERROR"
        case CURLE_WRITE_ERROR: "CURLE_WRITE_ERROR"
        case CURLE_READ_ERROR: "CURLE_READ_ERROR"
        case CURLE_OUT_OF_MEMORY: "CURLE_OUT_OF_MEMORY"
        case CURLE_OPERATION_TIMEDOUT: "CURLE_OPERATION_TIMEDOUT"
        case CURLE_RANGE_ERROR: "CURLE_RANGE_ERROR"
        case CURLE_SSL_CONNECT_ERROR: "CURLE_SSL_CONNECT_ERROR"
        case CURLE_BAD_DOWNLOAD_RESUME: "CURLE_BAD_DOWNLOAD_RESUME"
        case CURLE_FUNCTION_NOT_FOUND: "CURLE_FUNCTION_NOT_FOUND"
        case CURLE_ABORTED_BY_CALLBACK: "CURLE_ABORTED_BY_CALLBACK"
        case CURLE_BAD_FUNCTION_ARGUMENT: "CURLE_BAD_FUNCTION_ARGUMENT"
        case CURLE_INTERFACE_FAILED: "CURLE_INTERFACE_FAILED"
        case CURLE_TOO_MANY_REDIRECTS: "CURLE_TOO_MANY_REDIRECTS"
        case CURLE_UNKNOWN_OPTION: "CURLE_UNKNOWN_OPTION"
        case CURLE_GOT_NOTHING: "CURLE_GOT_NOTHING"
        case CURLE_SSL_ENGINE_NOTFOUND: "CURLE_SSL_ENGINE_NOTFOUND"
        case CURLE_SSL_ENGINE_SETFAILED: "CURLE_SSL_ENGINE_SETFAILED"
        case CURLE_SEND_ERROR: "CURLE_SEND_ERROR"
        case CURLE_RECV_ERROR: "CURLE_RECV_ERROR"
        case CURLE_SSL_CERTPROBLEM: "CURLE_SSL_CERTPROBLEM"
        case CURLE_SSL_CIPHER: "CURLE_SSL_CIPHER"
        case CURLE_PEER_FAILED_VERIFICATION: "CURLE_PEER_FAILED_VERIFICATION"
        case CURLE_BAD_CONTENT_ENCODING: "CURLE_BAD_CONTENT_ENCODING"
        case CURLE_FILESIZE_EXCEEDED: "CURLE_FILESIZE_EXCEEDED"
        case CURLE_SEND_FAIL_REWIND: "CURLE_SEND_FAIL_REWIND"
        case CURLE_SSL_ENGINE_INITFAILED: "CURLE_SSL_ENGINE_INITFAILED"
        case CURLE_SSL_CACERT_BADFILE: "CURLE_SSL_CACERT_BADFILE"
        case CURLE_SSL_SHUTDOWN_FAILED: "CURLE_SSL_SHUTDOWN_FAILED"
        case CURLE_AGAIN: "CURLE_AGAIN"
        case CURLE_SSL_CRL_BADFILE: "CURLE_SSL_CRL_BADFILE"
        case CURLE_SSL_ISSUER_ERROR: "CURLE_SSL_ISSUER_ERROR"
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH: "CURLE_SSL_PINNEDPUBKEYNOTMATCH"
        case CURLE_SSL_INVALIDCERTSTATUS: "CURLE_SSL_INVALIDCERTSTATUS"
        case CURLE_HTTP2_STREAM: "CURLE_HTTP2_STREAM"
        case CURLE_SSL_CLIENTCERT: "CURLE_SSL_CLIENTCERT"
        case CURLE_UNRECOVERABLE_POLL: "CURLE_UNRECOVERABLE_POLL"
        default: "CURLE_\(code.rawValue)"
        }
    }
}
