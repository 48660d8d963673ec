import Foundation
import Synchronization
@testable import AlertdHTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// Where the handler-policy tests put alertd and their servers.
///
/// With root and iproute2 it is a network namespace of the test's own: alertd
/// runs in it (`ip netns exec`), receivers bind in it, and names resolve
/// through a hosts file made for it (`/etc/netns/<name>/hosts`), so the tests
/// reach a real private address (10.20.30.40), a link-local one
/// (169.254.169.254) and a public one (198.51.100.7) without touching the
/// host's network. Otherwise, or with `ALERTD_TEST_NETNS=0`, loopback
/// addresses stand in (127.0.0.1–3) and the test prints that it fell back.
final class IsolatedNetwork: Sendable {
    /// A private address, reached by the operator's webhook and by the name ``internalName``.
    let internalAddress: String
    let internalName: String
    /// An address the tests put on `actions.allow`.
    let allowedAddress: String
    /// Where the proxy listens. In a namespace it is public, so the policy
    /// would let a connection to it through: only "no proxy" stops a call.
    let proxyAddress: String
    /// A link-local address with a name, when the namespace has them.
    let metadata: (address: String, name: String)?
    /// The namespace's name, or nil on loopback.
    let namespace: String?
    private let madeNetnsDirectory: Bool

    private static let counter = Atomic(0)

    /// Makes the namespace, or explains in the test output why not.
    init(_ test: String) {
        let name = "alertd-\(getpid())-\(Self.counter.add(1, ordering: .relaxed).newValue)"
        madeNetnsDirectory = !FileManager.default.fileExists(atPath: "/etc/netns")
        let reason = Self.makeNamespace(name)
        if let reason {
            print("[\(test)] no network namespace (\(reason)); falling back to loopback addresses 127.0.0.1-3")
            namespace = nil
            internalAddress = "127.0.0.1"
            internalName = "localhost"
            allowedAddress = "127.0.0.2"
            proxyAddress = "127.0.0.3"
            metadata = nil
        } else {
            print("[\(test)] in network namespace \(name)")
            namespace = name
            internalAddress = "10.20.30.40"
            internalName = "internal.test"
            allowedAddress = "10.20.30.41"
            proxyAddress = "198.51.100.7"
            metadata = ("169.254.169.254", "metadata.test")
        }
    }

    deinit {
        guard let namespace else { return }
        _ = Self.run(["/usr/sbin/ip", "netns", "del", namespace])
        try? FileManager.default.removeItem(atPath: "/etc/netns/\(namespace)")
        // Only a directory we made, and only once no namespace keeps files there.
        if madeNetnsDirectory { rmdir("/etc/netns") }
    }

    /// True when the proxy's address must be on `actions.allow` for a
    /// connection to it to pass the policy (loopback stands in for public).
    var proxyIsInternal: Bool { namespace == nil }

    /// A daemon that runs in this network, its TCP listener on `listenHost`.
    func daemon(config: [String: Any], listenHost: String = "127.0.0.1") throws -> TestDaemon {
        try TestDaemon(config: config, launcher: namespace.map { ["/usr/sbin/ip", "netns", "exec", $0] } ?? [], listenHost: listenHost)
    }

    /// A receiver listening on `address` in this network.
    func receiver(on address: String, script: [Int] = []) async throws -> WebhookReceiver {
        guard let namespace else { return try WebhookReceiver(host: address, script: script) }
        // setns changes only the calling thread, so the socket is bound on a
        // thread of our own that ends right after; the socket keeps the namespace.
        let result: Result<WebhookReceiver, any Error> = await withCheckedContinuation { continuation in
            Thread {
                let fd = open("/var/run/netns/\(namespace)", O_RDONLY)
                guard fd >= 0, IsolatedNetwork.setns(fd) == 0 else {
                    if fd >= 0 { close(fd) }
                    continuation.resume(returning: .failure(TestDaemon.Failure("cannot enter \(namespace): errno \(errno)")))
                    return
                }
                close(fd)
                continuation.resume(returning: Result { try WebhookReceiver(host: address, script: script) })
            }.start()
        }
        return try result.get()
    }

    /// `setns(fd, CLONE_NEWNET)`. Glibc's module map leaves setns(2) out
    /// (it is a GNU extension), so it is looked up at run time.
    private static func setns(_ fd: Int32) -> Int32 {
        typealias SetNS = @convention(c) (Int32, Int32) -> Int32
        let cloneNewNet: Int32 = 0x4000_0000
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { return -1 }
        return unsafeBitCast(symbol, to: SetNS.self)(fd, cloneNewNet)
    }

    /// Sets the namespace up; why it could not be, or nil.
    private static func makeNamespace(_ name: String) -> String? {
        if ProcessInfo.processInfo.environment["ALERTD_TEST_NETNS"] == "0" { return "ALERTD_TEST_NETNS=0" }
        guard getuid() == 0 else { return "not root" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") else {
            return "no /usr/sbin/ip; install iproute2 with scripts/install-deps.sh iproute2"
        }
        let ip = "/usr/sbin/ip"
        let steps: [[String]] = [
            [ip, "netns", "add", name],
            [ip, "-n", name, "link", "set", "lo", "up"],
        ] + ["10.20.30.40/32", "10.20.30.41/32", "198.51.100.7/32", "169.254.169.254/32"].map {
            [ip, "-n", name, "addr", "add", $0, "dev", "lo"]
        }
        for step in steps {
            if let failure = run(step) {
                _ = run([ip, "netns", "del", name])
                return failure
            }
        }
        let hosts = """
            127.0.0.1 localhost
            ::1 localhost
            10.20.30.40 internal.test
            169.254.169.254 metadata.test

            """
        do {
            try FileManager.default.createDirectory(atPath: "/etc/netns/\(name)", withIntermediateDirectories: true)
            try Data(hosts.utf8).write(to: URL(fileURLWithPath: "/etc/netns/\(name)/hosts"))
        } catch {
            _ = run([ip, "netns", "del", name])
            return "cannot write /etc/netns/\(name)/hosts: \(error.localizedDescription)"
        }
        return nil
    }

    /// Runs a command to completion; its failure, or nil.
    private static func run(_ command: [String]) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: command[0])
        p.arguments = Array(command.dropFirst())
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        do { try p.run() } catch { return "\(command.joined(separator: " ")): \(error.localizedDescription)" }
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            return "\(command.joined(separator: " ")) failed: \(text.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
        return nil
    }
}
