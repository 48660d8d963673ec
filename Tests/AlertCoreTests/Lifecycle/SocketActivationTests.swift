import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdCurl
@testable import AlertdHTTPServer
@testable import AlertdLogging
@testable import AlertdCommandLine
@testable import AlertdStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient
@testable import AlertdServices

#if canImport(Glibc)
import Glibc
#endif

/// Socket activation with real sockets at descriptor numbers the test owns.
@Suite(.serialized) struct SocketActivationTests {
    @Test func namedSocketsGetTheirRoles() throws {
        let sockets = try PassedSockets([.unixListening, .tcpListening])
        let activation = try SocketActivation.parse(
            environment: sockets.environment(names: "api:http"), firstDescriptor: sockets.first, pid: getpid())
        #expect(activation.warnings == [])
        #expect(activation.sockets.map(\.name) == ["api", "http"])
        #expect(activation.sockets.map(\.family) == [.unix, .inet])
        #expect(activation.descriptor(for: .api) == sockets.first)
        #expect(activation.descriptor(for: .http) == sockets.first + 1)
        #expect(activation.activatedListeners == .init(unixSocket: sockets.first, tcp: sockets.first + 1))
        for fd in sockets.descriptors {
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "descriptor \(fd) should be close-on-exec")
        }
    }

    @Test func unnamedSocketsAreClassifiedByFamily() throws {
        let sockets = try PassedSockets([.tcpListening, .unixListening])
        for names in [nil, "unknown:unknown", ":"] {
            var env = sockets.environment(names: names)
            if names == nil { env["LISTEN_FDNAMES"] = nil }
            let activation = try SocketActivation.parse(environment: env, firstDescriptor: sockets.first, pid: getpid())
            #expect(activation.warnings == [], "names \(names ?? "unset")")
            #expect(activation.sockets.map(\.name) == [nil, nil])
            #expect(activation.descriptor(for: .http) == sockets.first)
            #expect(activation.descriptor(for: .api) == sockets.first + 1)
        }
    }

    @Test func anUnknownNameIsAWarningNotACrash() throws {
        let sockets = try PassedSockets([.unixListening, .tcpListening])
        let activation = try SocketActivation.parse(
            environment: sockets.environment(names: "api:metrics"), firstDescriptor: sockets.first, pid: getpid())
        #expect(activation.sockets.count == 2)
        #expect(activation.descriptor(for: .api) == sockets.first)
        #expect(activation.descriptor(for: .http) == nil)
        #expect(activation.warnings.count == 1)
        #expect(activation.warnings.first?.contains("\"metrics\"") == true)
    }

    @Test func socketsOfTheWrongKindAreIgnoredWithAReason() throws {
        let sockets = try PassedSockets([.tcpListening, .unixListening, .udp, .unixNotListening])
        let activation = try SocketActivation.parse(
            environment: sockets.environment(names: "api:api:unknown:unknown"), firstDescriptor: sockets.first, pid: getpid())
        #expect(activation.descriptor(for: .api) == sockets.first + 1)
        #expect(activation.descriptor(for: .http) == nil)
        let warnings = activation.warnings.joined(separator: "\n")
        #expect(activation.warnings.count == 3, "\(warnings)")
        #expect(warnings.contains("must be a Unix socket"))
        #expect(warnings.contains("not a stream socket"))
        #expect(warnings.contains("not listening"))
    }

    @Test func twoSocketsForOneRoleKeepTheFirst() throws {
        let sockets = try PassedSockets([.unixListening, .unixListening])
        let activation = try SocketActivation.parse(
            environment: sockets.environment(names: "api:api"), firstDescriptor: sockets.first, pid: getpid())
        #expect(activation.descriptor(for: .api) == sockets.first)
        #expect(activation.warnings.count == 1)
        #expect(activation.warnings.first?.contains("second \"api\" socket") == true)
    }

    @Test func socketsForAnotherProcessAreNotOurs() throws {
        let sockets = try PassedSockets([.unixListening])
        var env = sockets.environment(names: "api")
        env["LISTEN_PID"] = "\(getpid() + 1)"
        #expect(!(try SocketActivation.parse(environment: env, firstDescriptor: sockets.first, pid: getpid())).isActive)
        env["LISTEN_PID"] = nil
        #expect(!(try SocketActivation.parse(environment: env, firstDescriptor: sockets.first, pid: getpid())).isActive)
        #expect(!(try SocketActivation.parse(environment: [:])).isActive)
        // Not ours: the descriptor is left as it was.
        #expect(fcntl(sockets.first, F_GETFD) & FD_CLOEXEC == 0)
    }

    @Test func inconsistentVariablesAreErrors() throws {
        let sockets = try PassedSockets([.unixListening])
        let pid = getpid()
        func code(_ env: [String: String]) -> SocketActivationError.Code? {
            do {
                _ = try SocketActivation.parse(environment: env, firstDescriptor: sockets.first, pid: pid)
                return nil
            } catch { return error.code }
        }
        #expect(code(["LISTEN_PID": "\(pid)", "LISTEN_FDS": "two"]) == .invalidVariable)
        #expect(code(["LISTEN_PID": "me", "LISTEN_FDS": "1"]) == .invalidVariable)
        #expect(code(["LISTEN_PID": "\(pid)", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "api:http"]) == .nameCountMismatch)
        // LISTEN_FDS promises a second descriptor that is not open.
        #expect(code(["LISTEN_PID": "\(pid)", "LISTEN_FDS": "2"]) == .badDescriptor)
        #expect(code(["LISTEN_PID": "\(pid)", "LISTEN_FDS": "0"]) == nil)
    }

    @Test func theFamilyOfADescriptor() throws {
        let sockets = try PassedSockets([.unixListening, .tcpListening, .tcp6Listening])
        #expect(SocketActivation.family(of: sockets.first) == .unix)
        #expect(SocketActivation.family(of: sockets.first + 1) == .inet)
        #expect(SocketActivation.family(of: sockets.first + 2) == .inet6 || sockets.noIPv6)
        let pipeEnds = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        defer { pipeEnds.deallocate() }
        #expect(pipe(pipeEnds) == 0)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }
        #expect(SocketActivation.family(of: pipeEnds[0]) == .other(-1))
    }

    @Test func activatedListenersReplaceTheOnesAlertdWouldBind() {
        var config = DaemonConfiguration(stateDirectory: "/var/lib/alertd")
        config.api.socketPath = "/run/alertd/alertd.sock"
        config.api.listen = "127.0.0.1:9190"
        #expect(config.apiListeners(environment: [:]) == [
            .unixSocket(path: "/run/alertd/alertd.sock", mode: 0o660), .tcp(host: "127.0.0.1", port: 9190),
        ])
        config.api.activatedListeners = .init(unixSocket: 3)
        #expect(config.apiListeners(environment: [:]) == [
            .listeningSocket(descriptor: 3, kind: .unixSocket), .tcp(host: "127.0.0.1", port: 9190),
        ])
        config.api.listen = nil
        config.api.activatedListeners = .init(unixSocket: 3, tcp: 4)
        #expect(config.apiListeners(environment: [:]) == [
            .listeningSocket(descriptor: 3, kind: .unixSocket), .listeningSocket(descriptor: 4, kind: .tcp),
        ])
    }

    @Test func anActivatedSocketServesHTTP() async throws {
        let sockets = try PassedSockets([.tcpListening])
        let activation = try SocketActivation.parse(
            environment: sockets.environment(names: "http"), firstDescriptor: sockets.first, pid: getpid())
        let fd = try #require(activation.descriptor(for: .http))
        let server = HTTPServer(configuration: .init(listener: .listeningSocket(descriptor: fd, kind: .tcp)),
                                handler: EchoedRequest.handler)
        try server.start()
        let port = try #require(server.port)
        let response = try await HTTPClient.shared.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/x", method: "GET"))
        #expect(try EchoedRequest.decode(response.body).listener == "tcp")
        await server.stop()
    }

    // MARK: - End to end

    /// The built alertd, started the way systemd starts it: the test's
    /// sockets as descriptors 3 and 4, LISTEN_PID naming alertd itself.
    @Test
    func alertdServesThePassedSockets() async throws {
        let dir = TemporaryDirectory()
        let socketPath = dir.path + "/passed.sock"
        let unixFd = try PassedSockets.listeningUnixSocket(at: socketPath)
        defer { close(unixFd) }
        let (tcpFd, port) = try PassedSockets.listeningTCPSocket()
        defer { close(tcpFd) }
        let token = "test-token-0123456789abcdef"
        try writeSecretFile(token, to: dir.path + "/token")
        let config: [String: Any] = [
            "api": ["token_file": dir.path + "/token"],
            "presenters": ["log": ["type": "log", "path": "alerts.log"]],
        ]
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir.path + "/config.json"))

        let alertd = try TestBinaries.path(of: "alertd")
        let child = try SpawnedProcess(
            "/bin/sh", ["-c", #"export LISTEN_PID=$$; exec "$0" "$@""#, alertd,
                        "--config", dir.path + "/config.json", "--state-dir", dir.path + "/state"],
            environment: ["LISTEN_FDS": "2", "LISTEN_FDNAMES": "api:http"],
            descriptors: [3: unixFd, 4: tcpFd], output: dir.path + "/alertd.log")
        defer { child.kill() }
        func log() -> String { (try? String(contentsOfFile: dir.path + "/alertd.log", encoding: .utf8)) ?? "" }

        func post(_ title: String, tcp: Bool, token: String? = nil) async throws -> HTTPClientResponse {
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            if let token { headers.set("Authorization", "Bearer \(token)") }
            return try await HTTPClient.shared.send(HTTPClientRequest(
                url: (tcp ? "http://127.0.0.1:\(port)" : "http://localhost") + "/v1/alerts", method: "POST",
                headers: headers, body: Data(#"{"title":"\#(title)"}"#.utf8), connectTimeout: .seconds(2),
                timeout: .seconds(5), unixSocketPath: tcp ? nil : socketPath))
        }

        // Until alertd accepts, connections wait in the socket's backlog: that is the point.
        let first = try await post("Over the passed Unix socket", tcp: false)
        #expect(first.status == 202, "\(String(decoding: first.body, as: UTF8.self))\n\(log())")
        // The TCP socket is served as TCP: the token is required there.
        #expect(try await post("No token", tcp: true).status == 401)
        let second = try await post("Over the passed TCP socket", tcp: true, token: token)
        #expect(second.status == 202, "\(log())")
        // alertd did not bind a socket of its own in the state directory.
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/state/alertd.sock"))

        child.signal(SIGTERM)
        #expect(await child.waitForExit() == 0, "\(log())")
        // The passed socket file belongs to systemd: alertd must leave it.
        #expect(FileManager.default.fileExists(atPath: socketPath))
    }
}

/// Listening sockets moved to consecutive descriptor numbers the test picks,
/// standing in for systemd's 3, 4, ...; closed on deinit.
final class PassedSockets {
    enum Kind { case unixListening, unixNotListening, tcpListening, tcp6Listening, udp }

    let first: Int32
    let descriptors: [Int32]
    private(set) var noIPv6 = false
    private let dir = TemporaryDirectory()

    init(_ kinds: [Kind]) throws {
        var made: [Int32] = []
        var noIPv6 = false
        for (i, kind) in kinds.enumerated() {
            switch kind {
            case .unixListening: made.append(try Self.listeningUnixSocket(at: dir.path + "/s\(i).sock"))
            case .unixNotListening: made.append(socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0))
            case .tcpListening: made.append(try Self.listeningTCPSocket().fd)
            case .tcp6Listening:
                if let fd = try? Self.listeningTCPSocket(ipv6: true).fd { made.append(fd) } else {
                    noIPv6 = true
                    made.append(try Self.listeningTCPSocket().fd)
                }
            case .udp: made.append(socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0))
            }
        }
        self.noIPv6 = noIPv6
        // A free run of numbers well above what the test process uses.
        var base: Int32 = 300 + Int32.random(in: 0..<60) * 10
        while (base..<base + Int32(kinds.count)).contains(where: { fcntl($0, F_GETFD) >= 0 }) { base += 10 }
        for (i, fd) in made.enumerated() {
            guard dup2(fd, base + Int32(i)) >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            close(fd)
        }
        first = base
        descriptors = (0..<Int32(kinds.count)).map { base + $0 }
    }

    deinit { for fd in descriptors { close(fd) } }

    func environment(names: String?) -> [String: String] {
        var env = ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "\(descriptors.count)"]
        env["LISTEN_FDNAMES"] = names
        return env
    }

    static func listeningUnixSocket(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0, listen(fd, 64) == 0 else {
            let e = errno
            close(fd)
            throw POSIXError(.init(rawValue: e) ?? .EIO)
        }
        return fd
    }

    static func listeningTCPSocket(ipv6: Bool = false) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var rc: Int32
        var port: UInt16 = 0
        if ipv6 {
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_addr = in6addr_loopback
            var len = socklen_t(MemoryLayout<sockaddr_in6>.size)
            rc = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 ? getsockname(fd, $0, &len) : -1 }
            }
            port = UInt16(bigEndian: addr.sin6_port)
        } else {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            rc = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 ? getsockname(fd, $0, &len) : -1 }
            }
            port = UInt16(bigEndian: addr.sin_port)
        }
        guard rc == 0, listen(fd, 64) == 0 else {
            let e = errno
            close(fd)
            throw POSIXError(.init(rawValue: e) ?? .EIO)
        }
        return (fd, port)
    }
}
