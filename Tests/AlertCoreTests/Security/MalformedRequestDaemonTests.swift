import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdAPI

/// Requests no well-behaved client sends, as raw bytes on a real socket.
///
/// Every error alertd answers itself is the JSON error shape. What it cannot
/// shape: libmicrohttpd 0.9.75 answers some malformed requests on its own,
/// before any alertd code runs, with its built-in HTML body, and it has no
/// option to replace those pages (`MHD_OPTION_NOTIFY_COMPLETED` and the
/// request-completed callback only report how a request ended). They are:
/// a request line or header that is not HTTP (400), an HTTP version other
/// than 1.0 or 1.1 (400 or 505), a request line or headers larger than the
/// connection's memory limit (414, 431), a malformed or oversized
/// `Content-Length` (400, 413), and malformed chunked encoding or a chunk
/// size that overflows (400, 413). alertd answers everything that reaches
/// it, including an oversized body of either kind and the cases below.
@Suite(.serialized) struct MalformedRequestDaemonTests {
    /// The status line (Swift reads `\r\n` as one character).
    func head(_ reply: String) -> String { reply.components(separatedBy: "\r\n").first ?? "" }

    func errorCode(_ reply: String) -> String? {
        guard let start = reply.range(of: "\r\n\r\n")?.upperBound else { return nil }
        let body = Data(reply[start...].utf8)
        return (try? HTTPErrorBody.decode(body))?.code
    }

    /// The path went to libmicrohttpd as a C string, cut at the NUL:
    /// `/v1/alerts/\0x` was served as `/v1/alerts`, the list.
    @Test func aRawNULOrControlByteInThePathIs400() async throws {
        let d = try TestDaemon()
        try await d.start()
        _ = try await d.send(["title": "listed"])
        for raw: [UInt8] in [Array("/v1/alerts/".utf8) + [0] + Array("x".utf8), Array("/v1/alerts".utf8) + [0],
                             Array("/v1/alerts/".utf8) + [0x1B] + Array("x".utf8), Array("/v1/health".utf8) + [0x7F]] {
            let socket = try RawSocket(port: d.port)
            socket.send(bytes: Array("GET ".utf8) + raw + Array(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
            let reply = await socket.read()
            #expect(head(reply) == "HTTP/1.1 400 Bad Request", "\(raw)")
            #expect(reply.contains("Content-Type: application/json"))
            #expect(errorCode(reply) == "invalid_target", "\(reply)")
        }
        // Percent-encoded, it is only an id that names nothing.
        let socket = try RawSocket(port: d.port)
        socket.send("GET /v1/alerts/%00x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let reply = await socket.read()
        #expect(head(reply) == "HTTP/1.1 404 Not Found")
        #expect(errorCode(reply) == "alert_not_found")
    }

    /// A chunked body has no length to refuse up front; past twice the limit
    /// it used to be dropped without an answer. The connection is closed
    /// after the answer, as API.md says: read to its end, the body had left
    /// libmicrohttpd keeping it for the client's next request.
    @Test func aChunkedBodyFarOverTheLimitGets413() async throws {
        let d = try TestDaemon(config: ["limits": ["max_body_bytes": 4096]])
        try await d.start()
        let socket = try RawSocket(port: d.port)
        socket.send("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n")
        let chunk = String(repeating: "x", count: 1024)
        for _ in 0..<64 { socket.send("400\r\n\(chunk)\r\n") }  // 16 times the limit
        socket.send("0\r\n\r\n")
        let (reply, closed) = await socket.readToEnd()
        #expect(head(reply) == "HTTP/1.1 413 Content Too Large" || head(reply) == "HTTP/1.1 413 Payload Too Large", "\(head(reply))")
        #expect(errorCode(reply) == "body_too_large")
        #expect(reply.contains("Connection: close"), "\(reply)")
        #expect(closed)

        // curl streaming a chunked body of five times the limit.
        let response = try await d.request("POST", "/v1/alerts", body: Data(count: 5 * 4096),
                                           headers: ["Content-Type": "application/json", "Transfer-Encoding": "chunked"], tcp: true)
        #expect(response.status == 413)
        #expect((try? HTTPErrorBody.decode(response.body))?.code == "body_too_large")
        // On Alertmanager's paths, in Alertmanager's shape (a JSON string), its code beside it.
        let amTooBig = try await d.request("POST", "/api/v2/alerts", body: Data(count: 5 * 4096),
                                           headers: ["Content-Type": "application/json"], tcp: true)
        #expect(amTooBig.status == 413)
        #expect(amTooBig.headers[APIError.codeHeader] == "body_too_large")
        #expect((try? JSONDecoder().decode(String.self, from: amTooBig.body))?.contains("4096-byte limit") == true,
                "\(String(decoding: amTooBig.body, as: UTF8.self))")
        #expect(try await d.request("GET", "/v1/health", tcp: true).status == 200)
    }

    /// A client that sends its oversized body without waiting (Python's,
    /// Go's as Prometheus sends) gets the 413 once the body is in: answered
    /// first, the close reset its connection and lost the answer.
    @Test func aClientSendingAnOversizedBodyReadsThe413() async throws {
        let d = try TestDaemon(config: ["limits": ["max_body_bytes": 4096]])
        try await d.start()
        // http.client writes the whole body before it reads: as Go's client does.
        let script = """
            import http.client, sys, urllib.parse
            url = urllib.parse.urlsplit(sys.argv[1])
            c = http.client.HTTPConnection(url.hostname, url.port)
            try:
                c.request("POST", url.path, body=b"x" * 30_000_000, headers={"Content-Type": "application/json"})
                r = c.getresponse()
                print(r.status, r.read().decode())
            except Exception as e:
                print("failed:", repr(e))
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, "http://127.0.0.1:\(d.port)/api/v2/alerts"]
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        #expect(output.hasPrefix("413 "), "\(output)")
        #expect(output.contains("4096-byte limit"), "\(output)")
    }

    /// What alertd answers itself is JSON, whatever was wrong.
    @Test func everyErrorAlertdAnswersIsJSON() async throws {
        let d = try TestDaemon(config: ["limits": ["max_body_bytes": 4096]])
        try await d.start()
        // Each ends its head here; the loop adds `Connection: close` and the body.
        let requests: [(String, String, String)] = [
            ("GET /v1/alerts/\u{0}x HTTP/1.1\r\nHost: 127.0.0.1\r\n", "", "invalid_target"),
            ("GET /v1/alerts HTTP/1.1\r\nHost: evil.example\r\n", "", "unknown_host"),
            ("BREW /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\n", "", "method_not_allowed"),
            ("GET /nothing HTTP/1.0\r\n", "", "not_found"),
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 999999\r\n", "", "body_too_large"),
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n", "{}", "unsupported_media_type"),
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n", "{,", "malformed_json"),
            // Two lengths: a proxy may have read the other, and the rest would be smuggled in as a request.
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 30\r\n",
             "{}", "conflicting_content_length"),
            // Both framings: a proxy going by Content-Length would read the rest as another request.
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n",
             "2\r\n{}\r\n0\r\n\r\n", "conflicting_content_length"),
            // A coding libmicrohttpd cannot frame: it waited 10 s for a body.
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n",
             "2\r\n{}\r\n0\r\n\r\n", "unsupported_transfer_encoding"),
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: identity\r\n",
             "{}", "unsupported_transfer_encoding"),
            // `chunked` with a space after it: libmicrohttpd takes it for no
            // framing and read the connection to its end, swallowing what followed.
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked \r\n",
             "2\r\n{}\r\n0\r\n\r\n", "unsupported_transfer_encoding"),
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\t\r\n",
             "2\r\n{}\r\n0\r\n\r\n", "unsupported_transfer_encoding"),
            // `Name :` was read as another field, so the body went by Content-Length.
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding : chunked\r\nContent-Length: 2\r\n",
             "{}", "invalid_header"),
            ("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n", "", "invalid_header"),
            // Chunked twice: RFC 9112 forbids it, and a proxy may have undone only one.
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
             "2\r\n{}\r\n0\r\n\r\n", "invalid_header"),
            // A raw NUL, which libmicrohttpd cuts the value at: the Host check
            // passed `127.0.0.1\0.evil.example`, and each framing read its first part.
            ("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\0.evil.example\r\n", "", "invalid_header"),
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\0x\r\n",
             "2\r\n{}\r\n0\r\n\r\n", "invalid_header"),
            ("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\0 999\r\n", "{}", "invalid_header"),
            ("GET /v1/health HTTP/1.1\nHost: 127.0.0.1\nX-Note: a\0\0b\n", "", "invalid_header"),
            // A value folded onto the next line (obs-fold, RFC 9112 §5.2).
            ("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\r\n b\r\n", "", "invalid_header"),
        ]
        for (head, body, code) in requests {
            let socket = try RawSocket(port: d.port)
            socket.send(head + "Connection: close\r\n\r\n" + body)
            let reply = await socket.read()
            #expect(reply.contains("Content-Type: application/json"), "\(head.prefix(30)): \(self.head(reply))")
            #expect(errorCode(reply) == code, "\(head.prefix(30)): \(reply)")
        }
    }

    /// The last field's value is checked to its end as well, and the ends
    /// of lines a client may send (CRLF, a bare LF, an empty value) are not
    /// taken for a value cut short.
    /// RFC 9112 §3.2: an HTTP/1.1 request with no Host is refused on TCP
    /// (it was answered); HTTP/1.0, which has no Host to send, is not.
    @Test func anHTTP11RequestWithoutHostIs400() async throws {
        let d = try TestDaemon()
        try await d.start()
        let bare = try RawSocket(port: d.port)
        bare.send("GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n")
        let reply = await bare.read()
        #expect(head(reply) == "HTTP/1.1 400 Bad Request", "\(reply)")
        #expect(errorCode(reply) == "missing_host")
        let old = try RawSocket(port: d.port)
        old.send("GET /v1/health HTTP/1.0\r\n\r\n")
        #expect(head(await old.read()).hasSuffix("200 OK"))
    }

    @Test func aNULInTheLastFieldIsRefusedAndPlainHeadsAreNot() async throws {
        let d = try TestDaemon()
        try await d.start()
        let cut = try RawSocket(port: d.port)
        cut.send("GET /v1/health HTTP/1.1\r\nConnection: close\r\nHost: 127.0.0.1\0.evil.example\r\n\r\n")
        #expect(errorCode(await cut.read()) == "invalid_header")
        for head in ["GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Empty:\r\nX-Spaced:   \r\nConnection: close\r\n\r\n",
                     "GET /v1/health HTTP/1.1\nHost: 127.0.0.1\nX-Empty:\nConnection: close\n\n",
                     "GET /v1/health HTTP/1.1\r\nConnection: close\r\nHost: 127.0.0.1\r\nX-Empty:\r\n\r\n",
                     "GET /v1/health HTTP/1.1\nConnection: close\nHost: 127.0.0.1\nX-Last: v \n\n"] {
            let plain = try RawSocket(port: d.port)
            plain.send(head)
            let reply = await plain.read()
            #expect(self.head(reply) == "HTTP/1.1 200 OK", "\(head.debugDescription): \(reply)")
        }
    }

    /// A request with both framings is answered alone and its connection
    /// closed: what follows it is not read as a request of its own.
    @Test func aRequestWithBothFramingsEndsItsConnection() async throws {
        let d = try TestDaemon()
        try await d.start()
        let socket = try RawSocket(port: d.port)
        socket.send("POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                    + "Content-Length: 4\r\n\r\n11\r\n{\"title\":\"smug\"}\r\n0\r\n\r\nGET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let (reply, closed) = await socket.readToEnd()
        #expect(closed)
        #expect(head(reply) == "HTTP/1.1 400 Bad Request", "\(reply)")
        #expect(reply.components(separatedBy: "HTTP/1.1 ").count == 2, "one answer only: \(reply)")
        let listed = try JSONSerialization.jsonObject(with: try await d.request("GET", "/v1/alerts").body) as? [String: Any]
        #expect((listed?["alerts"] as? [Any])?.isEmpty == true, "\(String(describing: listed))")
    }
}
