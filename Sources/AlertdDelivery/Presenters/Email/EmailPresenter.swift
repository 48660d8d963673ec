import FoundationEssentials
import AlertModel
import AlertdCurl

/// Settings for an `email` presenter: where to hand mail over (SMTP via
/// libcurl), who it is from and for.
///
/// ```json
/// "mail": {"type": "email", "url": "smtp://mail.example.com:587", "from": "alertd <alertd@example.com>",
///          "to": ["ops@example.com"], "username": "alertd", "password_file": "/etc/alertd/smtp-password"}
/// ```
///
/// `tls` is `required` (STARTTLS or no mail), `optional` (STARTTLS when
/// offered) or `none`; it defaults to `required` when there is a password,
/// which must never cross the network in the clear, and to `optional`
/// otherwise. `smtps://` is TLS from the start whatever it says. The
/// server's certificate is checked against the system's CAs, or against
/// those in `ca_file` (PEM) for a server with a private CA's certificate.
public struct EmailPresenterConfiguration: PresenterConfiguration {
    public static let typeName = "email"
    public static let keys = ["url", "from", "to", "cc", "username", "tls", "ca_file", "connect_timeout", "timeout"] + PresenterSecret.keys("password")
    public static var example: [String: Any] {
        ["url": "smtp://mail.example.com:587", "from": "alertd <alertd@example.com>", "to": ["ops@example.com"]]
    }

    /// One address with its optional display name: `alertd <alertd@example.com>`.
    public struct Mailbox: Sendable, Equatable {
        public var name: String?
        public var address: String

        public init(name: String? = nil, address: String) {
            self.name = name
            self.address = address
        }

        /// `Name <address>` or a bare `address`; nil when it is neither.
        public init?(parsing text: String) {
            let trimmed = text.trimmingSpaces()
            if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
                var name = trimmed[..<open].trimmingSpaces()
                if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") { name = String(name.dropFirst().dropLast()) }
                self.name = name.isEmpty ? nil : name
                address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            } else {
                name = nil
                address = trimmed
            }
            guard Self.isAddress(address), !(name ?? "").contains(where: { $0.isNewline }) else { return nil }
        }

        /// `local@domain` in ASCII, without the characters that would let it
        /// break out of an SMTP command or a header.
        static func isAddress(_ text: String) -> Bool {
            let parts = text.split(separator: "@", omittingEmptySubsequences: false)
            return parts.count == 2 && parts.allSatisfy { !$0.isEmpty }
                && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !"<>()[],;:\\\"".unicodeScalars.contains($0) }
        }
    }

    public var url = ""
    public var from = Mailbox(address: "alertd@localhost")
    public var to: [Mailbox] = []
    public var cc: [Mailbox] = []
    public var username: String?
    public var password: PresenterSecret?
    public var tls: SMTPRequest.TLS = .optional
    /// The CAs that issued the server's certificate, PEM; nil for the system's.
    public var caFile: String?
    public var connectTimeout: Duration = .seconds(10)
    /// Limit for the whole exchange with the server, connecting included.
    public var timeout: Duration = .seconds(30)

    public init(url: String, from: Mailbox, to: [Mailbox], cc: [Mailbox] = [], tls: SMTPRequest.TLS = .optional) {
        self.url = url
        self.from = from
        self.to = to
        self.cc = cc
        self.tls = tls
    }

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        url = reader.url(object, "url", at: path, schemes: ["smtp", "smtps"], required: true,
                         need: "the mail server, e.g. smtp://mail.example.com:587") ?? ""
        // libcurl logs in with a URL's user info, under none of the rules
        // for `password` (TLS required by default, a private file).
        if URLRedaction.redactingUserInfo(url) != url {
            reader.problem(reader.join(path, "url"), "must not hold a login (user@ or user:password@); give username, and password_file, "
                           + "with which TLS is required by default")
        }
        if let text = reader.string(object, "from", at: path) {
            if let box = Mailbox(parsing: text) { from = box } else { reader.problem(reader.join(path, "from"), Self.addressProblem(text)) }
        } else if object["from"] == nil {
            reader.problem(reader.join(path, "from"), "is required: the sender, e.g. \"alertd <alertd@example.com>\"")
        }
        if object["to"] == nil {
            reader.problem(reader.join(path, "to"), "is required: a list of recipients, e.g. [\"ops@example.com\"]")
        } else {
            to = Self.mailboxes(object, "to", at: path, reader)
            if (object["to"] as? [Any])?.isEmpty == true { reader.problem(reader.join(path, "to"), "must name at least one recipient") }
        }
        cc = Self.mailboxes(object, "cc", at: path, reader)
        username = reader.string(object, "username", at: path)
        password = PresenterSecret.read("password", from: object, at: path, reader, required: false)
        if (username == nil) != (password == nil) { reader.problem(path, "give username and password (or password_file) together") }
        tls = password == nil ? .optional : .required
        if let text = reader.string(object, "tls", at: path) {
            if let mode = SMTPRequest.TLS(rawValue: text) {
                tls = mode
            } else {
                reader.problem(reader.join(path, "tls"), "must be required, optional or none, got \"\(text)\"")
            }
        }
        // libcurl's "STARTTLS if offered" logs in without it where it is not
        // offered: the password went in the clear, which the docs promise
        // only `none` allows.
        if password != nil, tls == .optional, url.lowercased().hasPrefix("smtp://") {
            reader.problem(reader.join(path, "tls"), "optional would send the password in the clear to a server that does not offer STARTTLS; "
                           + "leave tls out (required, the default with a password), or say none to allow that")
        }
        // smtps:// is TLS from the start, whatever tls says: `none` would
        // promise a plain connection that does not happen.
        if tls == .none, url.lowercased().hasPrefix("smtps://") {
            reader.problem(reader.join(path, "tls"), "none is for smtp://; smtps:// is TLS from the start, so leave tls out, or use smtp://")
        }
        caFile = reader.string(object, "ca_file", at: path)
        if let d = reader.duration(object, "connect_timeout", at: path) { connectTimeout = d }
        if let d = reader.duration(object, "timeout", at: path) { timeout = d }
    }

    static func mailboxes(_ object: [String: Any], _ key: String, at path: String, _ reader: JSONConfigReader) -> [Mailbox] {
        (reader.strings(object, key, at: path) ?? []).enumerated().compactMap { i, text in
            if let box = Mailbox(parsing: text) { return box }
            reader.problem("\(reader.join(path, key))[\(i)]", addressProblem(text))
            return nil
        }
    }

    /// The sender's domain, the right side of every `Message-ID` alertd writes.
    var domain: String { from.address.split(separator: "@").last.map(String.init) ?? "localhost" }

    static func addressProblem(_ text: String) -> String {
        "\"\(text)\" is not an address; write name@example.com or \"Name <name@example.com>\" (ASCII addresses only)"
    }

    /// Every address the mail goes to, `to` then `cc`, each once.
    var recipients: [String] {
        var seen = Set<String>()
        return (to + cc).map(\.address).filter { seen.insert($0).inserted }
    }

    /// A follow-up is a reply to the alert's mail (`In-Reply-To` its
    /// `Message-ID`, subject `Re: …`), so mail clients thread the two.
    public static var followUps: FollowUpSupport { .onByDefault }

    public func makePresenter(name: String, context: PresenterContext) throws(PresenterSetupError) -> any AlertPresenter {
        var resolved = self
        if let caFile {
            // Checked now, so --check-config finds a missing file, not the first mail.
            resolved.caFile = context.resolve(caFile)
            guard FileManager.default.isReadableFile(atPath: resolved.caFile!) else {
                throw PresenterSetupError("the CA file \(resolved.caFile!) cannot be read; give a PEM file of the CA certificates that issued the mail server's")
            }
        }
        return EmailPresenter(name: name, configuration: resolved, password: try password?.value(in: context))
    }

    public func preview(of alert: Alert, delivery: DeliveryContext) -> PresenterPreview? {
        var head = envelope
        if delivery.followUp == nil && ActionKind.allCases.contains(where: { alert.spec.action($0) != nil }) {
            head.append("with api.public_url set: one message per recipient, each with links signed for its address")
        }
        return PresenterPreview(head: head, body: EmailPresenter.message(for: alert, delivery: delivery, configuration: self, date: Date())
            .replacing("\r\n", with: "\n"))
    }

    public func preview(of notification: AlertGroupNotification, delivery: DeliveryContext) -> PresenterPreview? {
        PresenterPreview(head: envelope, body: EmailPresenter.message(for: notification, delivery: delivery, configuration: self, date: Date())
            .message.replacing("\r\n", with: "\n"))
    }

    /// The SMTP exchange a preview shows above the message.
    private var envelope: [String] {
        var head = ["SMTP \(URLRedaction.redactingUserInfo(url)) (TLS: \(url.lowercased().hasPrefix("smtps:") ? "from the start" : tls.rawValue))"]
        if let caFile { head.append("trusting the CAs in \(caFile)") }
        if let username, let password { head.append("AUTH as \(username) with \(password.placeholder)") }
        head.append("MAIL FROM:<\(from.address)>")
        head += recipients.map { "RCPT TO:<\($0)>" }
        return head
    }
}

/// Mails each alert: a multipart/alternative message with a text and an
/// HTML part, the action links as links, sent once per attempt. Retries of
/// one delivery carry the same `Message-ID`, so a mail client shows a
/// retried mail once and a person can tell it is the same.
///
/// An alert with action links goes out as one message per recipient (`to`
/// and `cc`; the headers still name them all), each with links signed for
/// its address, so a decision by link records who it was sent to. With
/// several recipients each copy has a `Message-ID` of its own, the same on
/// every retry, and a retry sends only to the recipients this presenter has
/// not yet seen accepted.
public struct EmailPresenter: AlertPresenter {
    public let name: String
    public let configuration: EmailPresenterConfiguration
    private let password: String?
    private let now: @Sendable () -> Date
    private let sent = EmailSentRecipients()

    public init(name: String, configuration: EmailPresenterConfiguration, password: String? = nil,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.name = name
        self.configuration = configuration
        self.password = password
        self.now = now
    }

    public func present(_ alert: Alert, delivery: DeliveryContext) async -> PresentationOutcome {
        let c = configuration
        guard delivery.signsPerRecipient else {
            return await sendToAll(Self.message(for: alert, delivery: delivery, configuration: c, date: now()), delivery: delivery.deliveryID)
        }
        // A lone recipient's copy is the one message: it keeps the delivery's own Message-ID.
        let copies = c.recipients.count > 1
        return await sendEach(delivery.deliveryID, skipping: sent.recipients(of: delivery.deliveryID)) { address in
            Self.message(for: alert, delivery: delivery.addressed(to: address), configuration: c, date: now(), copyFor: copies ? address : nil)
        }
    }

    /// A group notification as one mail. The group's first starts a thread
    /// (its `Message-ID` is returned as the thread); later ones answer it
    /// (`In-Reply-To` and `References`, subject `Re: …`), so mail clients
    /// show a group's reminders and resolution under its first mail.
    public func presentGroup(_ notification: AlertGroupNotification, delivery: DeliveryContext) async -> GroupPresentationOutcome {
        let (message, messageID) = Self.message(for: notification, delivery: delivery, configuration: configuration, date: now())
        let outcome = await sendToAll(message, delivery: delivery.deliveryID)
        // Reached some: the thread is theirs too, should retries end it as partly delivered.
        if case .reachedSome = outcome { return GroupPresentationOutcome(outcome: outcome, thread: delivery.thread ?? messageID) }
        guard outcome.isDelivered else { return GroupPresentationOutcome(outcome: outcome) }
        return GroupPresentationOutcome(outcome: outcome, thread: delivery.thread ?? messageID)
    }

    /// `message` in one envelope to every recipient. Should the server
    /// refuse one of several, each is sent it alone instead, so that one
    /// stale address does not keep the mail from the rest, and the failure
    /// names the address.
    private func sendToAll(_ message: String, delivery id: DeliveryID) async -> PresentationOutcome {
        let recipients = configuration.recipients
        let done = sent.recipients(of: id)
        if done.isEmpty, sent.refusals(of: id).isEmpty {
            switch await send(message, to: recipients) {
            case .success: return .delivered
            case .failure(.recipientRefused) where recipients.count > 1: break
            case .failure(let error): return Self.outcome(for: error, to: recipients.count == 1 ? recipients.first : nil)
            }
        }
        return await sendEach(id, skipping: done) { _ in message }
    }

    /// Each recipient not yet reached its own message, in its own envelope.
    /// Worth another try while any recipient's failure is: those already
    /// reached are not mailed again, nor those refused for good (5xx), whose
    /// refusals still count in the outcome. Refused for good by some once others
    /// have it, it is delivered to those (``PresentationOutcome/partlyDelivered(reason:)``).
    /// A failure of the server's own (unreachable, TLS, a refused login)
    /// ends the round: the rest would fail the same way, one timeout each
    /// (six recipients, 30 s), and a refused login tried once per recipient
    /// can lock the account. Those not tried wait for the next attempt.
    private func sendEach(_ id: DeliveryID, skipping done: Set<String>, _ message: (String) -> String) async -> PresentationOutcome {
        let refused = sent.refusals(of: id)
        var failures = configuration.recipients.compactMap { refused[$0] }.map { PresentationOutcome.permanentFailure(reason: $0) }
        var reached = !done.isEmpty
        recipients: for address in configuration.recipients where !done.contains(address) && refused[address] == nil {
            switch await send(message(address), to: [address]) {
            case .success:
                sent.add(address, to: id)
                reached = true
            case .failure(let error):
                let outcome = Self.outcome(for: error, to: address)
                failures.append(outcome)
                if !error.concernsOneMail { break recipients }
                if case .permanentFailure(let reason) = outcome { sent.refuse(address, because: reason, for: id) }
            }
        }
        let reason = failures.compactMap(\.reason).joined(separator: "; ")
        if failures.contains(where: { if case .retryableFailure = $0 { true } else { false } }) {
            return reached ? .reachedSome(reason: reason) : .retryableFailure(reason: reason)
        }
        sent.forget(id)
        if failures.isEmpty { return .delivered }
        return reached ? .partlyDelivered(reason: reason) : .permanentFailure(reason: reason)
    }

    private func send(_ message: String, to recipients: [String]) async -> Result<Void, SMTPClientError> {
        let c = configuration
        let request = SMTPRequest(
            url: c.url, from: c.from.address, recipients: recipients, message: Data(message.utf8),
            username: c.username, password: password, tls: c.tls, caFile: c.caFile, connectTimeout: c.connectTimeout, timeout: c.timeout)
        do {
            try await SMTPClient.send(request)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// SMTP's own rule: 4xx replies are worth another try, 5xx are not; a
    /// server that cannot be reached may be back later, one that refuses
    /// the login or TLS will not change its mind.
    static func outcome(for error: SMTPClientError, to recipient: String? = nil) -> PresentationOutcome {
        // The address only where it is what failed.
        var reason = "email: \(error.summary)"
        if case .recipientRefused = error, let recipient { reason = "email to \(recipient): \(error.summary)" }
        switch error {
        case .rejected(_, let code, _) where (400..<500).contains(code), .recipientRefused(_, let code) where (400..<500).contains(code):
            return .retryableFailure(reason: reason)
        case .rejected, .recipientRefused, .badURL, .authenticationFailed, .loginNotOffered, .startTLSUnavailable:
            return .permanentFailure(reason: reason)
        // TLS trouble is usually fixed on the server's side (a renewed
        // certificate), as for webhooks; the retry budget bounds the wait.
        case .couldNotConnect, .timedOut, .dnsFailure, .tls, .untrustedCertificate, .connectionLost, .cancelled, .other, .loginRefusedForNow:
            return .retryableFailure(reason: reason)
        }
    }

    // MARK: The message

    /// The whole message, CRLF line ends, every line within 78 columns;
    /// with `copyFor`, the copy for that one recipient of several, with a
    /// `Message-ID` of its own (its links are the delivery's).
    static func message(for alert: Alert, delivery: DeliveryContext, configuration c: EmailPresenterConfiguration, date: Date,
                        copyFor recipient: String? = nil) -> String {
        var digest = AlertDigest(alert, delivery: delivery)
        if let message = digest.message, message.utf8.count > Self.messageBytes {
            digest.message = TextLimit.truncate(message, to: Self.messageBytes, in: .utf8)
                + "\n\n(The message is cut here; `alertctl show \(digest.id)` has it whole.)"
        }
        let domain = c.domain
        var originals: [String] = []
        if let followUp = digest.followUp {
            // The alert's mail was one message, or, when it had action links, one per
            // recipient: name them all, and each mail client threads on the one it has.
            originals = [Self.messageID(followUp.original, recipient: nil, domain: domain)]
            if !digest.actions.isEmpty && c.recipients.count > 1 {
                originals += c.recipients.map { Self.messageID(followUp.original, recipient: $0, domain: domain) }
            }
        }
        let bodies = digest.followUp == nil ? (text(digest), html(digest)) : (followUpText(digest), followUpHTML(digest))
        return compose(
            subject: (digest.followUp == nil ? "" : "Re: ") + digest.heading,
            messageID: Self.messageID(delivery.deliveryID, recipient: recipient, domain: domain), inReplyTo: originals,
            extra: ["X-Alertd-Alert-ID: \(Self.token(digest.id))", "X-Alertd-Severity: \(digest.severity.rawValue)"],
            text: bodies.0, html: bodies.1, boundary: Self.token(delivery.deliveryID.rawValue), configuration: c, date: date)
    }

    /// A group notification's mail and its `Message-ID`, the delivery's id
    /// (which names the group, when it formed and the notification's
    /// sequence), so retries of one notification are the same mail and a
    /// group that forms again starts a new thread. With a thread (the
    /// first's `Message-ID`), a reply to it.
    static func message(for notification: AlertGroupNotification, delivery: DeliveryContext, configuration c: EmailPresenterConfiguration,
                        date: Date) -> (message: String, messageID: String) {
        let g = AlertGroupDigest(notification)
        let messageID = Self.messageID(delivery.deliveryID, recipient: nil, domain: c.domain)
        // Only a well-formed msg-id goes into a header.
        let thread = delivery.thread.flatMap { t in t.hasPrefix("<") && t.hasSuffix(">") && t.allSatisfy { $0.isASCII && !$0.isWhitespace } ? t : nil }
        let extra = ["X-Alertd-Group-ID: \(Self.token(notification.groupID.rawValue))", "X-Alertd-Severity: \(notification.severity.rawValue)"]
        let html = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>\(MarkupEscaping.html(g.title))</title></head>\n"
            + "<body style=\"font-family:sans-serif\">\n<div style=\"border-left:6px solid \(g.style.hexColour);padding:4px 16px\">\n"
            + g.html(limit: Self.groupBodyBytes) + "\n</div>\n</body></html>\n"
        let message = compose(
            subject: (thread == nil ? "" : "Re: ") + g.title, messageID: messageID, inReplyTo: thread.map { [$0] } ?? [], extra: extra,
            text: g.text(limit: Self.groupBodyBytes), html: html, boundary: Self.token(delivery.deliveryID.rawValue), configuration: c, date: date)
        return (message, messageID)
    }

    /// How much of a group's list one part holds (the links of alerts past
    /// it point to the console beyond this).
    static let groupBodyBytes = 512 * 1024

    /// How much of an alert's message a mail holds. Quoted-printable makes
    /// up to three bytes of each, and the mail has it twice (text and HTML):
    /// a message of 1 MB, which `limits.max_message_length` allows, made a
    /// mail of 6 MB, near the 10 MB Postfix takes by default, whose refusal
    /// (552) ends the delivery.
    static let messageBytes = 64 * 1024

    /// Headers, then a multipart/alternative body with a text and an HTML part.
    private static func compose(
        subject: String, messageID: String, inReplyTo: [String], extra: [String], text: String, html: String, boundary id: String,
        configuration c: EmailPresenterConfiguration, date: Date
    ) -> String {
        let boundary = "=_alertd_\(id)"
        var headers = [
            MIMEText.addresses("From", [(c.from.name, c.from.address)]),
            MIMEText.addresses("To", c.to.map { ($0.name, $0.address) }),
        ]
        if !c.cc.isEmpty { headers.append(MIMEText.addresses("Cc", c.cc.map { ($0.name, $0.address) })) }
        headers += [MIMEText.unstructured("Subject", subject), "Date: \(MIMEText.date(date))", MIMEText.identifiers("Message-ID", [messageID])]
        if !inReplyTo.isEmpty {
            headers += [MIMEText.identifiers("In-Reply-To", inReplyTo), MIMEText.identifiers("References", inReplyTo)]
        }
        headers += [
            "MIME-Version: 1.0",
            // RFC 3834: out-of-office replies must not answer it.
            "Auto-Submitted: auto-generated",
        ]
        headers += extra
        headers.append("Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"")
        // Quoted-printable writes every `=` as `=3D`, so the boundary's
        // `=_` can never occur inside a part.
        let parts = [("text/plain", text), ("text/html", html)].map { type, body in
            "--\(boundary)\r\nContent-Type: \(type); charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
                + MIMEText.quotedPrintable(body) + "\r\n"
        }
        return headers.joined(separator: "\r\n") + "\r\n\r\n" + parts.joined() + "--\(boundary)--\r\n"
    }

    /// `<delivery@domain>`, or `<delivery.recipient@domain>` for the copy
    /// sent to one recipient: the same on every retry. The address is
    /// written with its `@` as `-`; one that would then read like another's
    /// (`a+b@x` and `a-b@x` are both `a-b-x`) gets 16 hex digits of its
    /// hash too, so no two recipients' copies share an id.
    static func messageID(_ delivery: DeliveryID, recipient: String?, domain: String) -> String {
        "<\(Self.token(delivery.rawValue + (recipient.map { "." + Self.addressToken($0) } ?? "")))@\(domain)>"
    }

    /// `alice@example.com` as `alice-example.com`: the first `-` is the
    /// `@` when the local part has none and nothing else needs replacing.
    static func addressToken(_ address: String) -> String {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        let plain = parts.count == 2
            && parts[0].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_") }
            && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
        guard !plain else { return token(address) }
        var hash = FNV1a()
        hash.add(address)
        return token(address) + ".h" + hash.hex
    }

    /// Letters, digits, `.`, `-` and `_` of `text`, others as `-`: safe in
    /// a `Message-ID`, a boundary and a header.
    static func token(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") ? $0 : "-" })
    }

    static func text(_ d: AlertDigest) -> String {
        var blocks = [d.heading]
        if let message = d.message { blocks.append(message) }
        if !d.labels.isEmpty { blocks.append(d.labels.map { "\($0.name): \($0.value)" }.joined(separator: "\n")) }
        var actions = d.linkedActions.map { "\($0.label): \($0.link)" }
        actions += d.actions.filter { $0.link == nil }.map { "\($0.label): run `alertctl \($0.kind.rawValue) \(d.id)`" }
        if !actions.isEmpty { blocks.append(actions.joined(separator: "\n")) }
        blocks.append("-- \nalertd, alert \(d.id), created \(d.createdAt)")
        return blocks.joined(separator: "\n\n") + "\n"
    }

    static func followUpText(_ d: AlertDigest) -> String {
        ([d.followUpHeadline] + d.followUpDetails).joined(separator: "\n\n") + "\n\n-- \nalertd\n"
    }

    static func followUpHTML(_ d: AlertDigest) -> String {
        let e = MarkupEscaping.html
        let colour = d.closedStyle.hexColour
        let body = ["<div style=\"border-left:6px solid \(colour);padding:4px 16px\">",
                    "<h2 style=\"margin:4px 0 12px\">\(e(d.followUpHeadline))</h2>"]
            + d.followUpDetails.map { "<p style=\"white-space:pre-wrap\">\(e($0))</p>" } + ["</div>"]
        return "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>\(e(d.followUpHeadline))</title></head>\n"
            + "<body style=\"font-family:sans-serif\">\n" + body.joined(separator: "\n") + "\n</body></html>\n"
    }

    static func html(_ d: AlertDigest) -> String {
        let e = MarkupEscaping.html
        let colour = d.style.hexColour
        var body = [
            "<div style=\"border-left:6px solid \(colour);padding:4px 16px\">",
            "<p style=\"margin:0;color:\(colour);font-weight:bold;letter-spacing:1px\">\(e(d.style.label))</p>",
            "<h2 style=\"margin:4px 0 12px\">\(e(d.title))</h2>",
        ]
        if let message = d.message { body.append("<p style=\"white-space:pre-wrap\">\(e(message))</p>") }
        if !d.labels.isEmpty {
            body.append("<table style=\"border-collapse:collapse\">")
            body += d.labels.map {
                "<tr><th style=\"text-align:left;padding:2px 12px 2px 0;color:#555\">\(e($0.name))</th><td>\(e($0.value))</td></tr>"
            }
            body.append("</table>")
        }
        let links = d.linkedActions
        if !links.isEmpty {
            body.append("<p style=\"margin-top:16px\">")
            body += links.map { a in
                let background = a.kind == .confirm ? colour : "#666666"
                return "<a href=\"\(e(a.link))\" style=\"display:inline-block;padding:8px 16px;margin-right:8px;"
                    + "background:\(background);color:#ffffff;text-decoration:none;border-radius:4px\">\(e(a.label))</a>"
            }
            body.append("</p>")
        }
        for a in d.actions where a.link == nil {
            body.append("<p>\(e(a.label)): run <code>alertctl \(a.kind.rawValue) \(e(d.id))</code></p>")
        }
        body.append("</div>")
        body.append("<p style=\"color:#888888;font-size:12px\">alertd, alert \(e(d.id)), created \(e(d.createdAt))</p>")
        return "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>\(e(d.heading))</title></head>\n"
            + "<body style=\"font-family:sans-serif\">\n" + body.joined(separator: "\n") + "\n</body></html>\n"
    }
}
