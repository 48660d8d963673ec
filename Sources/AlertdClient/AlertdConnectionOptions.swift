import AlertdPOSIX
import FoundationEssentials
import AlertdCommandLine
import AlertModel

/// The options every command that talks to the daemon shares, and how they
/// (with `ALERTD_SOCKET`, `ALERTD_URL`, `ALERTD_TOKEN_FILE`) pick an
/// ``AlertdEndpoint``. Options beat the environment; without either,
/// alertctl looks where alertd puts its socket by default.
public struct AlertdConnectionOptions: Sendable, Equatable {
    /// The options to add to a command's configuration.
    public static let options: [CommandOption] = [
        .value("socket", valueName: "path",
               help: "alertd's Unix socket. Defaults to $ALERTD_SOCKET, else alertd's own default ($RUNTIME_DIRECTORY/alertd.sock or ./.alertd/alertd.sock if you own it and ./.alertd), else the service's /run/alertd/alertd.sock when that is missing or nothing answers on it and /run/alertd exists."),
        .value("url", valueName: "url",
               help: "Talk to alertd over TCP instead, e.g. http://127.0.0.1:9190; defaults to $ALERTD_URL."),
        .value("token-file", valueName: "file",
               help: "A file holding the API token for --url; defaults to $ALERTD_TOKEN_FILE, unless $ALERTD_URL names another server."),
    ]

    /// The exit codes of a command that talks to the daemon, for its discussion;
    /// 65 only where the command sends an alert.
    package static func exitCodesHelp() -> String {
        "Exit codes: 0 ok, 1 failure (an error from alertd), 64 usage error, 65 refused as invalid (400, 422), "
            + "69 alertd unavailable, 75 alertd cannot now (503, 429): try again later, 77 token refused or without the scope (401, 403)."
    }

    public var socket: String?
    public var url: String?
    public var tokenFile: String?

    public init(socket: String? = nil, url: String? = nil, tokenFile: String? = nil) {
        self.socket = socket
        self.url = url
        self.tokenFile = tokenFile
    }

    /// Reads the options from a command that declared ``options`` and checks
    /// what can be checked without the environment.
    public init(parsed: ParsedCommand) throws(CommandLineError) {
        self.init(socket: parsed.value("socket"), url: parsed.value("url"), tokenFile: parsed.value("token-file"))
        if socket == "" {
            throw .invalidValue("", for: parsed.configuration.option(named: "socket")!, expected: "give the path of alertd's socket.")
        }
        if socket != nil, url != nil {
            throw .invalidCombination("'--socket' and '--url' both say where alertd is; give only one.")
        }
        if socket != nil, tokenFile != nil {
            throw .invalidCombination("'--token-file' is for '--url'; the Unix socket needs no token.")
        }
        if let url, let problem = Self.urlProblem(url) {
            // A password in it is not said (``AlertdEndpoint/description``).
            throw .invalidValue(URLRedaction.redactingAllBeforeTheLastAt(url), for: parsed.configuration.option(named: "url")!, expected: problem)
        }
    }

    /// The endpoint these options and `environment` name. Reads the token
    /// file; a conflict or an unreadable file is a usage error.
    public func endpoint(environment: [String: String]) throws(CommandLineError) -> AlertdEndpoint {
        func variable(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        if let socket { return .unixSocket(socket) }
        let url: String
        if let given = self.url {
            url = given
        } else if let fromEnvironment = variable("ALERTD_URL") {
            if variable("ALERTD_SOCKET") != nil {
                throw .invalidCombination("ALERTD_SOCKET and ALERTD_URL are both set; unset one, or choose with '--socket' or '--url'.")
            }
            if let problem = Self.urlProblem(fromEnvironment) {
                throw CommandLineError(code: .invalidValue, message: "ALERTD_URL is '\(URLRedaction.redactingAllBeforeTheLastAt(fromEnvironment))': \(problem)")
            }
            url = fromEnvironment
        } else {
            if tokenFile != nil {
                throw .invalidCombination("'--token-file' is for '--url' (or ALERTD_URL); the Unix socket needs no token.")
            }
            if let path = variable("ALERTD_SOCKET") { return .unixSocket(path) }
            let own = AlertdPaths.defaultSocketPath(stateDirectory: AlertdPaths.defaultStateDirectory(environment: environment), environment: environment)
            var endpoint = AlertdEndpoint.unixSocket(AlertdPaths.clientSocketPath(environment: environment, refuses: Self.refuses))
            if endpoint.description != own, FileManager.default.fileExists(atPath: own) { endpoint.passedOver = own }
            if endpoint.description == own, variable("STATE_DIRECTORY") == nil, variable("RUNTIME_DIRECTORY") == nil {
                if let problem = Self.strangerOwns(own) { throw CommandLineError(code: .untrustedSocket, message: problem) }
                // What is at the path may change before the connect: who answers is checked then too.
                endpoint.trustedPeers = [CurrentProcess.effectiveUserID, 0]
            }
            return endpoint
        }
        // The environment's token goes with the environment's server: sent
        // to another that '--url' names, it went where it was never meant to.
        if tokenFile == nil, self.url != nil, variable("ALERTD_TOKEN_FILE") != nil,
           let paired = variable("ALERTD_URL"), paired != url {
            throw .invalidCombination("ALERTD_TOKEN_FILE is the token for ALERTD_URL (\(URLRedaction.redactingAllBeforeTheLastAt(paired))), "
                                      + "not for '--url'; give this server's token with '--token-file'.")
        }
        guard let file = tokenFile ?? variable("ALERTD_TOKEN_FILE") else { return .url(url) }
        return .url(url, token: try Self.readToken(file))
    }

    /// Why the socket alertctl found in the working directory
    /// (`./.alertd/alertd.sock`) is not to be used, or nil: it, or the
    /// directory holding it, belongs to another user. Whoever may write to
    /// the working directory could plant one there, read every alert sent
    /// to it (handler URLs and their tokens) and answer as alertd, a
    /// confirmation that `send --wait && deploy` acts on. Named with
    /// `--socket` or `ALERTD_SOCKET`, a socket is used as given.
    package static func strangerOwns(_ socket: String) -> String? {
        let directory = String(socket[..<(socket.lastIndex(of: "/") ?? socket.startIndex)])
        // A link is judged by who made it: one of this user's own may point anywhere.
        for path in [directory, socket] {
            guard case .success(let status) = FileStatus.link(path), !status.isOwnedByThisProcess else { continue }
            return "Not using \(path) found in the working directory: it belongs to user \(status.owner), not to you "
                + "(\(CurrentProcess.effectiveUserID)), and another user's socket could read what you send and answer as alertd. "
                + "Give it with '--socket' or ALERTD_SOCKET if you trust it."
        }
        return nil
    }

    /// Whether nothing listens on the Unix socket at `path`: connecting is
    /// refused at once (no daemon behind the file), not merely denied.
    package static func refuses(_ path: String) -> Bool {
        guard case .failure(.failed(let errno)) = StreamSocket.connect(unixSocket: path, deadline: .now + .milliseconds(200)) else { return false }
        return errno == .connectionRefused
    }

    /// Why `url` cannot be alertd's base URL, or nil when it can.
    package static func urlProblem(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else {
            return "give alertd's base URL, e.g. http://127.0.0.1:9190."
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil else {
            return "give only the base URL, e.g. http://127.0.0.1:9190, without a path; alertctl adds /v1/…."
        }
        return nil
    }

    /// The token in `file`, without the trailing newline editors add.
    package static func readToken(_ file: String) throws(CommandLineError) -> String {
        do {
            return try SecretFile.read(file)
        } catch {
            switch error.problem {
            case .missing, .unreadable:
                throw CommandLineError(code: .invalidValue, message: "Cannot read the token file '\(file)'; check that it exists and that you may read it.")
            case .empty:
                throw CommandLineError(code: .invalidValue, message: "The token file '\(file)' is empty.")
            default:
                throw CommandLineError(code: .invalidValue, message: "Refusing the token file: \(error.message).")
            }
        }
    }

    /// The client for `context`, or nil after printing the usage error.
    package func client(_ context: CommandContext, command: [String]) -> AlertdClient? {
        do {
            return AlertdClient(endpoint: try endpoint(environment: context.environment))
        } catch {
            var error = error
            error.commandPath = command
            context.errorOutput(CommandLineTool.report(error, root: AlertctlCommand.self))
            return nil
        }
    }
}
