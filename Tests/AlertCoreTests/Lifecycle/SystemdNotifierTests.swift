import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdSQLite
@testable import AlertdHTTP
@testable import AlertdHTTPServer
@testable import AlertdLogging
@testable import AlertdCommandLine
@testable import AlertdDelivery
@testable import AlertdDaemon
@testable import AlertdClient

#if canImport(Glibc)
import Glibc
#endif

/// The sd_notify protocol against real datagram sockets standing in for systemd's.
@Suite struct SystemdNotifierTests {
    @Test func withoutNotifySocketEverythingIsANoOp() throws {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        #expect(notifier.destination == nil)
        try notifier.ready()
        try notifier.status("x")
        try notifier.watchdog()
        try notifier.notify(["A": "b"])
    }

    @Test func readyReachesASocketFile() async throws {
        let receiver = try DatagramReceiver()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.address])
        #expect(notifier.destination == .path(receiver.address))
        try notifier.ready()
        #expect(await receiver.next() == "READY=1\n")
        try notifier.ready(status: "Accepting alerts")
        #expect(await receiver.next() == "READY=1\nSTATUS=Accepting alerts\n")
    }

    @Test func anAbstractSocketGetsTheSameMessages() async throws {
        let receiver = try DatagramReceiver(abstract: true)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.address])
        #expect(notifier.destination == .abstract(String(receiver.address.dropFirst())))
        try notifier.stopping()
        #expect(await receiver.next() == "STOPPING=1\n")
        try notifier.watchdog()
        #expect(await receiver.next() == "WATCHDOG=1\n")
    }

    @Test func statusAndFieldsAreOneLineEach() async throws {
        let receiver = try DatagramReceiver()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.address])
        try notifier.status("two\nlines")
        #expect(await receiver.next() == "STATUS=two lines\n")
        try notifier.notify(["STATUS": "ok", "MAINPID": "42", "ERRNO": "0"])
        #expect(await receiver.next() == "ERRNO=0\nMAINPID=42\nSTATUS=ok\n")
        #expect(throws: SystemdNotifierError.self) { try notifier.notify(["BAD=KEY": "x"]) }
        #expect(throws: SystemdNotifierError.self) { try notifier.notify(["": "x"]) }
        #expect(await receiver.next(timeout: .milliseconds(50)) == nil)
    }

    @Test func reloadingCarriesTheMonotonicClock() async throws {
        let receiver = try DatagramReceiver()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.address])
        let before = SystemdNotifier.monotonicMicroseconds()
        try notifier.reloading()
        let after = SystemdNotifier.monotonicMicroseconds()
        let message = try #require(await receiver.next())
        let lines = message.split(separator: "\n").map(String.init)
        #expect(lines.first == "RELOADING=1")
        let usec = try #require(lines.first { $0.hasPrefix("MONOTONIC_USEC=") }.flatMap { UInt64($0.dropFirst(15)) })
        #expect(usec >= before && usec <= after)
    }

    @Test func aVanishedSocketIsAnErrorNotACrash() throws {
        let dir = TemporaryDirectory()
        let gone = SystemdNotifier(environment: ["NOTIFY_SOCKET": dir.path + "/nobody"])
        let error = try #require(throws: SystemdNotifierError.self) { try gone.ready() }
        #expect(error.code == .sendFailed)
        #expect(error.errno == ENOENT)

        let abstract = SystemdNotifier(environment: ["NOTIFY_SOCKET": "@alertd-nobody-\(UUID().uuidString)"])
        let refused = try #require(throws: SystemdNotifierError.self) { try abstract.watchdog() }
        #expect(refused.code == .sendFailed)
        #expect(refused.errno == ECONNREFUSED)
    }

    @Test func unusableAddressesAreReported() throws {
        let vsock = SystemdNotifier(environment: ["NOTIFY_SOCKET": "vsock:2:1234"])
        #expect(vsock.isEnabled)
        #expect(vsock.configurationProblem?.code == .unsupportedAddress)
        #expect(throws: SystemdNotifierError.self) { try vsock.ready() }

        let long = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)])
        #expect(long.configurationProblem?.code == .socketPathTooLong)
    }

    @Test func watchdogIntervalHonoursWatchdogPID() {
        let me = getpid()
        #expect(SystemdNotifier.watchdogInterval(environment: [:]) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"], pid: me) == .seconds(30))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(me)"], pid: me) == .seconds(30))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(me + 1)"], pid: me) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "x"], pid: me) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "0"], pid: me) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "-5"], pid: me) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "soon"], pid: me) == nil)
    }

    @Test func theWatchdogPingsOnlyWhileTheProbeSaysAlive() async throws {
        let receiver = try DatagramReceiver()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.address])
        #expect(SystemdWatchdog(notifier: notifier, environment: [:], probe: { true }) == nil)
        let alive = Locked(true)
        let probe: @Sendable () async -> Bool = { alive.value }
        let made = SystemdWatchdog(notifier: notifier, environment: ["WATCHDOG_USEC": "40000"], probe: probe)
        let watchdog = try #require(made)
        #expect(watchdog.period == .milliseconds(20))
        let task = Task { await watchdog.run() }
        defer { task.cancel() }
        #expect(await receiver.next() == "WATCHDOG=1\n")
        #expect(await receiver.next() == "WATCHDOG=1\n")
        alive.withLock { $0 = false }
        // A probe that read `true` just before may still ping once.
        try await Task.sleep(for: .milliseconds(200))
        while await receiver.next(timeout: .zero) != nil {}
        #expect(await receiver.next(timeout: .milliseconds(150)) == nil)
    }
}

/// The built `alertd` under a fake service manager.
@Suite(.serialized) struct AlertdSystemdNotifyTests {
    @Test func alertdSaysReadyPingsTheWatchdogAndSaysStopping() async throws {
        let receiver = try DatagramReceiver()
        let d = try TestDaemon()
        try await d.start(environment: ["NOTIFY_SOCKET": receiver.address, "WATCHDOG_USEC": "200000"])
        let untilReady = try #require(await receiver.wait(for: "READY=1"), "no READY=1; log:\n\(d.log)")
        #expect(untilReady.last?.contains("STATUS=") == true)
        // Healthy: the dispatcher answers, so pings come every 100 ms.
        #expect(await receiver.wait(for: "WATCHDOG=1", timeout: .seconds(5)) != nil)
        #expect(await receiver.wait(for: "WATCHDOG=1", timeout: .seconds(5)) != nil)
        d.signal(SIGTERM)
        #expect(await receiver.wait(for: "STOPPING=1", timeout: .seconds(10)) != nil)
        #expect(await d.waitForExit() == 0)
    }

    @Test func alertdRunsWithoutAServiceManager() async throws {
        let dir = TemporaryDirectory()
        let d = try TestDaemon()
        try await d.start(environment: ["NOTIFY_SOCKET": dir.path + "/gone"])
        #expect(try await d.request("GET", "/v1/health").status == 200)
        d.signal(SIGTERM)
        #expect(await d.waitForExit() == 0)
        #expect(d.log.contains("cannot notify the service manager"))
    }
}
