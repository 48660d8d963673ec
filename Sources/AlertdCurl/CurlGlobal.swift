import CCurl
import AlertdPOSIX

#if canImport(Glibc)
import Glibc
#endif

/// libcurl's process-wide setup, which must run once before any other
/// libcurl call, by whichever client comes first.
enum CurlGlobal {
    /// The first libcurl call loads it (``LibraryLoading``).
    private static let done: Void = {
        LibraryLoading.run { _ = alertd_curl_global_init(Int(CURL_GLOBAL_ALL)) }
    }()

    static func initialize() { done }

    /// Whether alertd's environment names a proxy, or hosts to keep from
    /// one, for the schemes ``HTTPClient`` speaks (libcurl takes an empty
    /// one as none). libcurl reads these variables again for every transfer
    /// that sets no proxy of its own, five `getenv` walks each; nothing in
    /// alertd changes these variables, so one look, at the first transfer,
    /// says what every one of those walks would find.
    static let environmentNamesProxy: Bool = {
        let names = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]
        return names.contains { name in getenv(name).map { $0.pointee != 0 } ?? false }
    }()
}
