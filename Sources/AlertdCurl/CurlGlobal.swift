import CCurl

/// libcurl's process-wide setup, which must run once before any other
/// libcurl call, by whichever client comes first.
enum CurlGlobal {
    private static let done: Void = {
        _ = alertd_curl_global_init(Int(CURL_GLOBAL_ALL))
    }()

    static func initialize() { done }
}
