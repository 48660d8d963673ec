import CCurl
import AlertdPOSIX
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One libcurl multi handle driven by one dedicated thread: many transfers at
/// once over a shared connection cache (keep-alive, DNS cache). Callers hand
/// transfers in through a locked inbox and `curl_multi_wakeup`.
///
/// `@unchecked Sendable` is safe because the multi handle and `active` are
/// used only on the driver thread, except `curl_multi_wakeup`, which libcurl
/// documents as callable from any thread and which is only called while
/// `wakers` counts the caller and `ended` is false: the driver sets `ended`
/// and waits for `wakers` to reach zero before it cleans the handle up.
package final class CurlMultiDriver: @unchecked Sendable {
    private struct Inbox {
        package var submitted: [CurlTransfer] = []
        package var cancelled: [CurlTransfer] = []
        /// A new cap on open connections, for the driver thread to set.
        package var connectionLimit: Int?
        package var shuttingDown = false
        package var closed = false
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    /// Wake-ups are made outside the inbox lock: made under it, their
    /// socketpair write kept the driver thread, which takes the lock every
    /// round, spinning on it. These two keep them off a cleaned-up handle.
    private let wakers = Atomic<Int>(0)
    private let ended = Atomic<Bool>(false)
    private var active: [ObjectIdentifier: CurlTransfer] = [:]
    /// Easy handles of finished transfers, released, for the next ones.
    /// Up to as many as a burst had in flight: kept to 64, bursts of 100
    /// deliveries made and freed handles for most of them (figure (2)'s load
    /// under callgrind: 1,219 new handles for 2,000 deliveries; with 512
    /// kept, 301–304 k instructions an alert against 307–310 k). Down to 64
    /// again once quiet a while.
    private var spare: [CurlEasy] = []
    private static let spareLimit = 512
    private static let idleSpareLimit = 64
    private static let spareTrimAfter = Duration.seconds(10)
    private var lastBusy = ContinuousClock.now
    /// Transfers to each host, and those waiting for its connections to open.
    private var hosts = CurlHostSlots()

    package init?(configuration: HTTPClientConfiguration) {
        CurlGlobal.initialize()
        guard let multi = alertd_curl_multi_init() else { return nil }
        self.multi = multi
        _ = alertd_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(0, configuration.maxConnectionsPerHost))
        _ = alertd_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(0, configuration.maxConnections))
        _ = alertd_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, configuration.idleConnectionCache))
        DetachedThread.start(name: "alertd-http-client") { [self] in run() }
    }

    /// Queues a transfer; it completes through its continuation.
    package func submit(_ transfer: CurlTransfer) {
        let (accepted, wake) = inbox.withLock { inbox in
            guard !inbox.shuttingDown else { return (false, false) }
            inbox.submitted.append(transfer)
            // One wake-up per batch: the driver empties the inbox after every
            // wake-up, so a non-empty inbox has one pending already (each
            // costs a socketpair write and a read on the driver's side).
            return (true, inbox.submitted.count == 1)
        }
        if wake { wakeUp() }
        if !accepted { transfer.finish(.failure(.cancelled(url: transfer.request.redactedURL))) }
    }

    /// Asks the driver to drop a transfer; it completes as cancelled.
    package func cancel(_ transfer: CurlTransfer) {
        let queued = inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            inbox.cancelled.append(transfer)
            return true
        }
        if queued { wakeUp() }
    }

    /// Caps the connections open at once (`CURLMOPT_MAX_TOTAL_CONNECTIONS`),
    /// from the driver thread, the handle's only user.
    package func limitConnections(to limit: Int) {
        let queued = inbox.withLock { inbox in
            guard !inbox.shuttingDown else { return false }
            inbox.connectionLimit = limit
            return true
        }
        if queued { wakeUp() }
    }

    /// Ends the driver thread; transfers still running complete as cancelled.
    package func shutdown() {
        let first = inbox.withLock { inbox in
            guard !inbox.shuttingDown else { return false }
            inbox.shuttingDown = true
            return true
        }
        if first { wakeUp() }
    }

    private func wakeUp() {
        wakers.add(1, ordering: .sequentiallyConsistent)
        if !ended.load(ordering: .sequentiallyConsistent) { alertd_curl_multi_wakeup(multi) }
        wakers.subtract(1, ordering: .sequentiallyConsistent)
    }

    // MARK: The driver thread

    private func run() {
        var running: Int32 = 0
        while true {
            let (submitted, cancelled, stop, limit) = inbox.withLock { inbox in
                defer {
                    inbox.submitted.removeAll()
                    inbox.cancelled.removeAll()
                    inbox.connectionLimit = nil
                }
                return (inbox.submitted, inbox.cancelled, inbox.shuttingDown, inbox.connectionLimit)
            }
            if let limit { _ = alertd_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(0, limit)) }
            let now = ContinuousClock.now
            for transfer in submitted where !Self.paced(transfer) || hosts.admit(transfer, now: now) { start(transfer) }
            for transfer in cancelled { drop(transfer) }
            if stop { break }
            // Transfers a host made room for start at once: a reused
            // connection is counted within the perform that took it.
            for _ in 0..<8 {
                _ = alertd_curl_multi_perform(multi, &running)
                collectFinished()
                let ready = hosts.due(now: .now)
                if ready.isEmpty { break }
                for transfer in ready { start(transfer) }
            }
            if !active.isEmpty {
                lastBusy = .now
            } else if spare.count > Self.idleSpareLimit, ContinuousClock.now - lastBusy >= Self.spareTrimAfter {
                spare.removeLast(spare.count - Self.idleSpareLimit)
            }
            // Waiting transfers are looked at again soon: their patience may run out.
            _ = alertd_curl_multi_poll(multi, nil, 0, hosts.anyWaiting ? 100 : 1000, nil)
        }
        for transfer in Array(active.values) { drop(transfer) }
        for transfer in hosts.drain() { transfer.finish(.failure(.cancelled(url: transfer.request.redactedURL))) }
        spare.removeAll()
        inbox.withLock { $0.closed = true }
        // A caller that counted itself before this saw `ended` false and may
        // be waking the handle now; one that counts itself later sees it true.
        ended.store(true, ordering: .sequentiallyConsistent)
        while wakers.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
        alertd_curl_multi_cleanup(multi)
    }

    /// Whether `transfer` waits for its host's connections to open
    /// (``CurlHostSlots``): requests to the operator's services. A handler
    /// call (policy-checked) and a Unix socket's request go at once.
    private static func paced(_ transfer: CurlTransfer) -> Bool {
        transfer.request.connectPolicy == nil && transfer.request.unixSocketPath == nil
    }

    private func start(_ transfer: CurlTransfer) {
        if transfer.cancelRequested.load(ordering: .relaxed) {
            end(transfer, .failure(.cancelled(url: transfer.request.redactedURL)))
            return
        }
        let easy: CurlEasy
        do {
            easy = try transfer.makeEasyHandle(reusing: spare.popLast())
        } catch {
            end(transfer, .failure(error))
            return
        }
        let rc = alertd_curl_multi_add_handle(multi, easy.handle)
        guard rc == CURLM_OK else {
            end(transfer, .failure(.other(url: transfer.request.redactedURL, curl: CurlError(multi: rc))))
            return
        }
        active[ObjectIdentifier(transfer)] = transfer
    }

    private func drop(_ transfer: CurlTransfer) {
        if hosts.withdraw(transfer) {
            transfer.finish(.failure(.cancelled(url: transfer.request.redactedURL)))
            return
        }
        guard active.removeValue(forKey: ObjectIdentifier(transfer)) != nil else { return }
        if let easy = transfer.easyHandle { alertd_curl_multi_remove_handle(multi, easy.handle) }
        end(transfer, .failure(.cancelled(url: transfer.request.redactedURL)))
    }

    /// Gives the transfer's place at its host to the next, then its outcome to the caller.
    private func end(_ transfer: CurlTransfer, _ result: Result<HTTPClientResponse, HTTPClientError>) {
        hosts.finished(transfer, now: .now)
        transfer.finish(result)
    }

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = alertd_curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let code = alertd_curl_msg_result(message)
            var pointer: UnsafeMutableRawPointer?
            _ = alertd_curl_getinfo_ptr(handle, CURLINFO_PRIVATE, &pointer)
            alertd_curl_multi_remove_handle(multi, handle)
            guard let pointer else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(pointer).takeUnretainedValue()
            guard active.removeValue(forKey: ObjectIdentifier(transfer)) != nil else { continue }
            let result = transfer.outcome(code)
            // Released before the caller hears, so the handle no longer points
            // at the transfer's header list and error buffer when it goes.
            // Only a handle whose transfer went well is kept: libcurl 7.88
            // gave one whose connect had timed out that code again for its
            // next transfer's refused connect (a handler call the policy
            // refused read as a timeout, and was retried as one).
            hosts.finished(transfer, now: .now)
            if code == CURLE_OK, let easy = transfer.easyHandle, spare.count < Self.spareLimit {
                transfer.release(easy)
                spare.append(easy)
            }
            transfer.finish(result)
        }
    }
}
