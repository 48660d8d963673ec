import Dispatch
import FoundationEssentials
import AlertdLogging
import AlertdPOSIX
import AlertdServices

extension AlertDaemon {
    /// The signals ``run(signals:notifier:environment:reloadConfiguration:)``
    /// acts on, for the executable to hand over: SIGTERM and SIGINT stop (a
    /// second one at once), SIGHUP reloads. Debug builds add SIGUSR2, which
    /// stalls the dispatcher, when `ALERTD_TEST_HOOKS=1`.
    public static func handledSignals(environment: [String: String]) -> [ProcessSignal] {
        let signals: [ProcessSignal] = [.terminate, .interrupt, .hangUp]
        #if ALERTD_TEST_HOOKS
        if environment["ALERTD_TEST_HOOKS"] == "1" { return signals + [.user2] }
        #endif
        return signals
    }

    /// Runs the services until SIGTERM or SIGINT, then stops them within
    /// `dispatcher.shutdown_grace` (a second signal stops them at once), and
    /// closes the store. SIGHUP reloads through `reloadConfiguration`; a
    /// reload's problems are logged after `configurationSource`, the file
    /// it reads. Throws when a service cannot start (a listener cannot be
    /// bound) or fails; the rest have been stopped and the store closed by then.
    public func run(
        signals: AsyncStream<ProcessSignal>, notifier: SystemdNotifier,
        environment: [String: String] = CurrentProcess.environment, configurationSource: String = "<config>",
        reloadConfiguration: @escaping @Sendable () throws(ConfigurationError) -> DaemonConfiguration
    ) async throws(DaemonError) {
        // A configuration edited while alertd was stopped applies to the groups it left open.
        await followRoutes(intake.current, rerouting: await routesNoLongerGrouping())
        let group = ServiceGroup(
            services: services(notifier: notifier, environment: environment),
            gracePeriod: configuration.withLock { $0.dispatcher.shutdownGrace }, logger: Logger(label: "services"))
        let reloads = ReloadGate()
        let handler = Task {
            await handle(signals, group: group, notifier: notifier, reloads: reloads, source: configurationSource,
                         reloadConfiguration: reloadConfiguration)
        }
        var failure: DaemonError?
        do {
            try await group.run()
        } catch {
            failure = (error.underlying as? DaemonError) ?? DaemonError(code: .service, message: error.message)
        }
        // A reload applying reaches the store: it finishes before the store
        // closes, within the grace, while a second signal may still cut it short.
        await reloads.closeAndWait(atMost: configuration.withLock { $0.dispatcher.shutdownGrace })
        handler.cancel()
        close()
        if let failure { throw failure }
        log.notice("alertd stopped")
    }

    private func handle(
        _ signals: AsyncStream<ProcessSignal>, group: ServiceGroup, notifier: SystemdNotifier, reloads: ReloadGate, source: String,
        reloadConfiguration: @escaping @Sendable () throws(ConfigurationError) -> DaemonConfiguration
    ) async {
        // Reloads run beside this loop, one at a time, and SIGHUPs that come
        // during one make one more after it: run in the loop, a reload whose
        // read hung (a config on an NFS server gone) held SIGTERM behind it
        // for good.
        let (reloadRequests, requestReload) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let reloader = Task {
            for await _ in reloadRequests {
                await reloadOnSignal(notifier: notifier, gate: reloads, source: source, reloadConfiguration: reloadConfiguration)
                await group.setGracePeriod(configuration.withLock { $0.dispatcher.shutdownGrace })
            }
        }
        defer {
            requestReload.finish()
            reloader.cancel()
        }
        var stopping = false
        #if ALERTD_TEST_HOOKS
        var stalled = false
        #endif
        for await sig in signals {
            switch sig {
            case .terminate, .interrupt:
                let name = sig.description
                if !stopping {
                    stopping = true
                    reloader.cancel()
                    reloads.close()
                    log.notice("signal received, shutting down", ["signal": name])
                    await group.triggerGracefulShutdown()
                } else {
                    log.warning("second signal received, stopping at once; deliveries in flight are retried after restart",
                                ["signal": name])
                    reloads.stopWaiting()
                    await group.stopNow()
                }
            case .hangUp where !stopping:
                requestReload.yield()
            #if ALERTD_TEST_HOOKS
            case .user2:
                stalled.toggle()
                log.warning("fault hook: dispatcher stalled", ["stalled": "\(stalled)"])
                await dispatcher.setStalledForTesting(stalled)
            #endif
            default:
                break
            }
        }
    }

    /// SIGHUP: read the configuration again; apply it if it is valid, keep
    /// the running one and say why if not. systemd hears RELOADING=1 first
    /// and READY=1 after, whatever the result. Each problem is logged after
    /// `source`, the file read.
    private func reloadOnSignal(
        notifier: SystemdNotifier, gate: ReloadGate, source: String,
        reloadConfiguration: @escaping @Sendable () throws(ConfigurationError) -> DaemonConfiguration
    ) async {
        try? notifier.reloading()
        // Read off the task pool: a read that blocks must not hold one of its few threads.
        let read = await withCheckedContinuation { (continuation: CheckedContinuation<Result<DaemonConfiguration, ConfigurationError>, Never>) in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: Result { () throws(ConfigurationError) in try reloadConfiguration() })
            }
        }
        // Shutting down since: nothing is applied to a daemon stopping. Held
        // to the end, the status line read from the store included.
        guard !Task.isCancelled, gate.enter() else { return }
        defer { gate.leave() }
        var problems: [String] = []
        var changes: [String] = []
        do throws(ConfigurationError) {
            let new = try read.get()
            let old = configuration.withLock { $0 }
            do throws(DaemonError) {
                let (warnings, alsoChanged) = try await reload(new)
                for warning in warnings { log.warning("reload: setting kept until restart", ["detail": warning]) }
                changes = new.changes(from: old) + alsoChanged
            } catch {
                // What the file describes could not be made (a secret file gone): a
                // problem of the file, said as one reading it is, a line each.
                throw ConfigurationError(source: source, problems: error.message.split(separator: "\n").map(String.init))
            }
        } catch {
            // Every problem, as `--check-config` lists them: one at a time, each reload failed on the next.
            let error = await error.withProblemsBuildingFinds(logger: log)
            problems = error.problems.map { "\(error.source): \($0)" }
        }
        metrics.reloaded(successfully: problems.isEmpty)
        if problems.isEmpty {
            log.notice("configuration reloaded", ["changed": changes.isEmpty ? "nothing" : changes.joined(separator: "; ")])
            // READY=1 after the stop's STOPPING=1 would tell systemd the daemon runs on.
            guard !gate.isClosed else { return }
            try? notifier.ready(status: "Reloaded; \(await statusLine())")
        } else {
            for p in problems { log.error("reload failed; keeping the running configuration", ["problem": p]) }
            guard !gate.isClosed else { return }
            try? notifier.ready(status: "Reload failed (\(problems.count) problems, see the log); running the previous configuration")
        }
    }
}
