/// The console's files, embedded in the binary as text: no build step, no
/// CDN, nothing read from disk at run time. Each file's text is in its own
/// `ConsoleAssets+….swift`.
package enum ConsoleAssets {
    package struct File: Sendable {
        package let contentType: String
        package let body: String
    }

    /// By the name they are served under, `/ui/<name>`.
    package static let files: [String: File] = [
        "index.html": File(contentType: "text/html; charset=utf-8", body: page),
        "console.css": File(contentType: "text/css; charset=utf-8", body: style),
        "console.js": File(contentType: "text/javascript; charset=utf-8", body: script),
    ]
}
