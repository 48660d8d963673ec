import CCurl

/// Owns one libcurl easy handle (`curl_easy_init` / `curl_easy_cleanup`).
/// Not `Sendable`: it lives and dies on the multi driver's thread.
package final class CurlEasy {
    package let handle: UnsafeMutableRawPointer
    /// What the handle's shared options are set for; nil when new or reset.
    var profile: CurlTransfer.Profile?

    package init?() {
        guard let handle = alertd_curl_easy_init() else { return nil }
        self.handle = handle
    }

    deinit {
        alertd_curl_easy_cleanup(handle)
    }

    /// Back to libcurl's defaults for another transfer, keeping what
    /// `curl_easy_init` allocated (cheaper than a new handle per request).
    package func reset() {
        alertd_curl_easy_reset(handle)
    }

    /// `curl_easy_setopt` with a `long`.
    package func set(_ option: CURLoption, _ value: Int) throws(CurlError) {
        let rc = alertd_curl_setopt_long(handle, option, value)
        guard rc == CURLE_OK else { throw CurlError(rc) }
    }

    /// `curl_easy_setopt` with a string, which libcurl copies.
    package func set(_ option: CURLoption, _ value: String) throws(CurlError) {
        // Through withCString: a String passed as a raw pointer is copied
        // into a new array first, an allocation per URL per request.
        let rc = value.withCString { alertd_curl_setopt_ptr(handle, option, $0) }
        guard rc == CURLE_OK else { throw CurlError(rc) }
    }

    /// `curl_easy_setopt` with a pointer the caller keeps alive for the transfer.
    package func set(_ option: CURLoption, pointer: UnsafeRawPointer?) throws(CurlError) {
        let rc = alertd_curl_setopt_ptr(handle, option, pointer)
        guard rc == CURLE_OK else { throw CurlError(rc) }
    }

    /// `curl_easy_setopt` with a `curl_off_t`.
    package func set(_ option: CURLoption, offset: Int) throws(CurlError) {
        let rc = alertd_curl_setopt_off(handle, option, offset)
        guard rc == CURLE_OK else { throw CurlError(rc) }
    }

    /// `curl_easy_getinfo` for a `long`.
    package func info(_ info: CURLINFO) -> Int? {
        var value = 0
        return alertd_curl_getinfo_long(handle, info, &value) == CURLE_OK ? value : nil
    }

    /// `curl_easy_getinfo` for a `curl_off_t`.
    package func info(offset info: CURLINFO) -> Int? {
        var value: curl_off_t = 0
        return alertd_curl_getinfo_off(handle, info, &value) == CURLE_OK ? value : nil
    }

    /// `curl_easy_getinfo` for a `char *` owned by the handle.
    package func info(string info: CURLINFO) -> String? {
        var value: UnsafeMutableRawPointer?
        guard alertd_curl_getinfo_ptr(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value.assumingMemoryBound(to: CChar.self))
    }

    /// `curl_easy_getinfo(CURLINFO_PRIVATE)`.
    package var privatePointer: UnsafeMutableRawPointer? {
        var value: UnsafeMutableRawPointer?
        return alertd_curl_getinfo_ptr(handle, CURLINFO_PRIVATE, &value) == CURLE_OK ? value : nil
    }
}
