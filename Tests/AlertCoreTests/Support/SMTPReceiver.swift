import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real SMTP server on 127.0.0.1 for mail tests: Python's aiosmtpd
/// (scripts/install-deps.sh --test installs it), writing each message it accepts
/// to a file as received, with its envelope beside it. Recipients starting
/// `tempfail` get a 451, `reject` a 550; a message to one starting `hang`
/// is read to its end and never answered (nor is what follows it, QUIT
/// included), for 200 s; with `login`, it offers AUTH and
/// accepts only that user and password. With `tls`, it speaks TLS on a
/// certificate for 127.0.0.1 (``TestCertificates``): STARTTLS, required
/// before any mail, or TLS from the first byte (`smtps://`). Killed on deinit.
final class SMTPReceiver: Sendable {
    /// How the server protects the connection.
    enum TLSMode: Sendable {
        case none
        /// Offers STARTTLS and takes no mail before it.
        case startTLS(TestCertificates)
        /// TLS from the first byte, as `smtps://` expects.
        case implicit(TestCertificates)
    }

    /// A message as the server got it, and as Python's own MIME parser reads it.
    struct Mail: Sendable {
        let envelope: [String: any Sendable]
        let parsed: [String: any Sendable]

        var mailFrom: String? { envelope["mail_from"] as? String }
        var recipients: [String] { envelope["rcpt_tos"] as? [String] ?? [] }
        var login: String? { envelope["login"] as? String }
        /// Whether the message came over TLS (STARTTLS or `smtps://`).
        var overTLS: Bool { envelope["tls"] as? Int == 1 }
        /// A header's value unfolded, without the white space a fold leaves at its start.
        func header(_ name: String) -> String? { (parsed[name] as? String)?.trimmingCharacters(in: .whitespaces) }
        var parts: [[String: any Sendable]] { parsed["parts"] as? [[String: any Sendable]] ?? [] }
    }

    /// Whether `python3` can import aiosmtpd here.
    static let available = pythonCanImport("aiosmtpd")

    let dir = TemporaryDirectory()
    let port: Int
    private let process: SpawnedProcess

    let tls: TLSMode

    /// With `oldAuthSpelling`, the server lists its login as `AUTH=LOGIN
    /// PLAIN` (a spelling of old servers, which libcurl does not read) and
    /// takes mail without one.
    init(login: (user: String, password: String)? = nil, tls: TLSMode = .none, oldAuthSpelling: Bool = false) async throws {
        self.tls = tls
        let (mode, certs): (String, TestCertificates?) = switch tls {
        case .none: ("none", nil)
        case .startTLS(let c): ("starttls", c)
        case .implicit(let c): ("implicit", c)
        }
        let script = dir.path + "/server.py"
        try Data(Self.server.utf8).write(to: URL(fileURLWithPath: script))
        try Data(Self.parser.utf8).write(to: URL(fileURLWithPath: dir.path + "/parse.py"))
        try FileManager.default.createDirectory(atPath: dir.path + "/mail", withIntermediateDirectories: true)
        let arguments = [dir.path + "/mail", login?.user ?? "", login?.password ?? "", mode,
                         certs?.serverCertificate ?? "", certs?.serverKey ?? "", oldAuthSpelling ? "old" : "current"]
        (process, port) = try await PythonServer.start(script, arguments, portFile: dir.path + "/port", log: dir.path + "/server.log",
                                                       what: "the SMTP server")
    }

    deinit { process.kill() }

    var url: String {
        if case .implicit = tls { return "smtps://127.0.0.1:\(port)" }
        return "smtp://127.0.0.1:\(port)"
    }

    /// The messages received so far, oldest first, each parsed.
    /// How many times a client tried to log in, right or wrong.
    var loginAttempts: Int {
        ((try? String(contentsOfFile: dir.path + "/logins", encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    /// Every `RCPT TO` address the server was sent, accepted or not, in order.
    var recipientsAsked: [String] {
        ((try? String(contentsOfFile: dir.path + "/rcpts", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func mails() throws -> [Mail] {
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/mail").filter { $0.hasSuffix(".eml") }.sorted()
        return try names.map { name in
            let base = dir.path + "/mail/" + name.dropLast(4)
            let envelope = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: base + ".json"))) as? [String: Any] ?? [:]
            return Mail(envelope: envelope.mapValues(Self.sendable), parsed: try parse(base + ".eml").mapValues(Self.sendable))
        }
    }

    /// Runs Python's `email` package over a message file.
    private func parse(_ path: String) throws -> [String: Any] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", dir.path + "/parse.py", path]
        let out = dir.path + "/parsed.json"
        FileManager.default.createFile(atPath: out, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0,
              let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any] else {
            throw TestDaemon.Failure("parse.py failed on \(path)")
        }
        return json
    }

    private static func sendable(_ value: Any) -> any Sendable {
        switch value {
        case let s as String: s
        case let n as NSNumber: n.intValue
        case let list as [Any]: list.map(sendable)
        case let object as [String: Any]: object.mapValues(sendable)
        default: "\(value)"
        }
    }

    static let server = #"""
    import asyncio, json, os, socket, ssl, sys, threading
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    outdir, user, password, mode, cert, key, auth_spelling = sys.argv[1:8]

    class Handler:
        async def handle_EHLO(self, server, session, envelope, hostname, responses):
            session.host_name = hostname
            if auth_spelling == "old":
                return [r.replace("250-AUTH ", "250-AUTH=", 1) for r in responses]
            return responses

        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            with open(os.path.join(os.path.dirname(outdir), "rcpts"), "a") as f:
                f.write("%s\n" % address)
            if address.startswith("tempfail"):
                return "451 4.3.0 Mailbox busy, try again later"
            if address.startswith("reject"):
                return "550 5.1.1 No such user"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            if any(r.startswith("hang") for r in envelope.rcpt_tos):
                await asyncio.sleep(200)
            if any(r.startswith("drop") for r in envelope.rcpt_tos):
                server.transport.abort()
                return "250 2.0.0 never heard"
            if any(r.startswith("toobig") for r in envelope.rcpt_tos):
                return "552 5.3.4 Message size exceeds fixed limit"
            n = len([f for f in os.listdir(outdir) if f.endswith(".eml")])
            base = os.path.join(outdir, "msg-%03d" % n)
            login = session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None
            with open(base + ".json", "w") as f:
                json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos, "login": login,
                           "tls": session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None}, f)
            with open(base + ".tmp", "wb") as f:
                f.write(envelope.original_content)
            os.rename(base + ".tmp", base + ".eml")
            return "250 2.0.0 Message accepted"

    def authenticate(server, session, envelope, mechanism, auth_data):
        with open(os.path.join(os.path.dirname(outdir), "logins"), "a") as f:
            f.write("%s\n" % mechanism)
        if isinstance(auth_data, LoginPassword) and auth_data.password.decode() == "busy":
            return AuthResult(success=False, handled=False, message="454 4.7.0 Temporary authentication failure")
        ok = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user and auth_data.password.decode() == password
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    options = dict(authenticator=authenticate, auth_required=auth_spelling != "old", auth_require_tls=False) if user else {}
    if mode != "none":
        # PROTOCOL_TLS serves both sides: the controller checks it is up by connecting with it.
        context = ssl.SSLContext(ssl.PROTOCOL_TLS)
        context.load_cert_chain(cert, key)
        if mode == "starttls":
            options.update(tls_context=context, require_starttls=True)
        else:
            options.update(ssl_context=context)
    controller = Controller(Handler(), hostname="127.0.0.1", port=port, **options)
    controller.start()
    with open(os.path.join(os.path.dirname(outdir), "port"), "w") as f:
        f.write(str(port))
    threading.Event().wait()
    """#

    static let parser = #"""
    import email, email.utils, json, sys
    from email import policy

    raw = open(sys.argv[1], "rb").read()
    msg = email.message_from_bytes(raw, policy=policy.default)
    legacy = email.message_from_bytes(raw)

    def part(p):
        return {"type": p.get_content_type(), "charset": p.get_content_charset(),
                "encoding": p.get("Content-Transfer-Encoding"), "content": p.get_content().replace("\r\n", "\n"),
                "defects": [str(d) for d in p.defects]}

    lines = raw.split(b"\r\n")
    print(json.dumps({
        "subject": str(msg["Subject"]), "raw_subject": legacy["Subject"],
        "from": str(msg["From"]), "from_name": msg["From"].addresses[0].display_name,
        "to": [a.addr_spec for a in msg["To"].addresses], "to_names": [a.display_name for a in msg["To"].addresses],
        "cc": [a.addr_spec for a in msg["Cc"].addresses] if msg["Cc"] else [],
        "message_id": msg["Message-ID"], "auto_submitted": msg["Auto-Submitted"],
        "in_reply_to": msg["In-Reply-To"], "references": msg["References"],
        "date": int(email.utils.parsedate_to_datetime(msg["Date"]).timestamp()),
        "content_type": msg.get_content_type(), "multipart": msg.is_multipart(),
        "parts": [part(p) for p in msg.iter_parts()],
        "defects": [str(d) for d in msg.defects],
        "max_line": max(len(l) for l in lines), "size": len(raw),
        "bare_newlines": raw.replace(b"\r\n", b"").count(b"\n") + raw.replace(b"\r\n", b"").count(b"\r"),
    }))
    """#
}
