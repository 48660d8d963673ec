/// How many new connections each host is asked to accept at once. A
/// group flush sent 350 notifications to one receiver at the same moment,
/// and libcurl opened 189 connections to it at once, far past a small
/// server's listen backlog (Python's `http.server` keeps 5): the kernel
/// dropped 2,585 of the attempts, they were tried again after 1, 3 and 7 s,
/// and the last notification arrived after 9–26 s where Alertmanager's took
/// 1.2 s.
///
/// A host may have as many transfers running as it has connections,
/// counted as the most that were carrying a request at once lately (a
/// connection counts once a request is about to go on it: libcurl's prereq
/// callback, at once for one reused), plus a few that may each open a new
/// one: ``newConnections``, or an eighth of those it has. A connection
/// whose SYN a full backlog dropped never gets that far, so no more are
/// tried meanwhile. The rest wait here, in order, each at most a quarter of
/// its shorter timeout (libcurl's timers start when it starts, so a request
/// takes at most a quarter longer than asked): past that it starts anyway,
/// as it would have without the wait.
/// A host quiet for ``forgetAfter`` starts over: libcurl closes connections
/// idle a second (`CurlTransfer.keptConnectionMaxIdleSeconds`).
///
/// Used only on its driver's thread.
struct CurlHostSlots {
    static let newConnections = 4
    static let forgetAfter = Duration.seconds(1)

    /// One host's transfers.
    final class Slot {
        /// Started and not finished.
        var running = 0
        /// Running, with the request about to go, or gone, on a connection.
        var connected = 0
        /// The most connected at once since the host was last quiet: the
        /// connections it is known to have taken.
        var proven = 0
        var waiting: [(transfer: CurlTransfer, since: ContinuousClock.Instant)] = []
        var waitingHead = 0
        var quietSince: ContinuousClock.Instant?

        var hasRoom: Bool { running < proven + max(CurlHostSlots.newConnections, proven / 8) }
        var hasWaiting: Bool { waitingHead < waiting.count }

        /// A transfer's request is about to go on a connection, for the first time.
        func connectedOne() {
            connected += 1
            proven = max(proven, connected)
        }
    }

    private var slots: [String: Slot] = [:]
    private var lastSweep = ContinuousClock.now

    /// `scheme://host:port` of `url`, what libcurl keeps connections by.
    /// Over its bytes: `firstRange(of:)` took 16 k instructions a request.
    static func key(of url: String) -> Substring {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              bytes[bytes.index(after: colon)...].starts(with: "//".utf8) else { return url[...] }
        let host = bytes.index(colon, offsetBy: 3)
        let end = bytes[host...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        return url[..<(end ?? bytes.endIndex)]
    }

    /// The slot `transfer` counts in, made if new.
    mutating func slot(for transfer: CurlTransfer) -> Slot {
        let key = String(Self.key(of: transfer.request.url))
        if let slot = slots[key] { return slot }
        let slot = Slot()
        slots[key] = slot
        return slot
    }

    /// Takes `transfer` if its host has room, counting it; else it waits.
    mutating func admit(_ transfer: CurlTransfer, now: ContinuousClock.Instant) -> Bool {
        let slot = slot(for: transfer)
        slot.quietSince = nil
        guard !slot.hasWaiting, slot.hasRoom else {
            slot.waiting.append((transfer, now))
            return false
        }
        slot.running += 1
        transfer.hostSlot = slot
        return true
    }

    /// A counted transfer ended.
    func finished(_ transfer: CurlTransfer, now: ContinuousClock.Instant) {
        guard let slot = transfer.hostSlot else { return }
        transfer.hostSlot = nil
        slot.running -= 1
        if transfer.hasSent { slot.connected -= 1 }
        if slot.running == 0, !slot.hasWaiting { slot.quietSince = now }
    }

    /// Takes a waiting transfer out; false if it was not waiting.
    mutating func withdraw(_ transfer: CurlTransfer) -> Bool {
        guard transfer.hostSlot == nil, let slot = slots[String(Self.key(of: transfer.request.url))] else { return false }
        guard let index = slot.waiting[slot.waitingHead...].firstIndex(where: { $0.transfer === transfer }) else { return false }
        slot.waiting.remove(at: index)
        return true
    }

    /// The waiting transfers that may start now: their host has room, or
    /// they have waited their connect timeout. Counted as started.
    mutating func due(now: ContinuousClock.Instant) -> [CurlTransfer] {
        var ready: [CurlTransfer] = []
        for slot in slots.values where slot.hasWaiting {
            while slot.hasWaiting {
                let (transfer, since) = slot.waiting[slot.waitingHead]
                let patience = min(transfer.request.connectTimeout, transfer.request.timeout) / 4
                guard slot.hasRoom || now - since >= patience else { break }
                slot.waitingHead += 1
                slot.running += 1
                transfer.hostSlot = slot
                ready.append(transfer)
            }
            if !slot.hasWaiting {
                slot.waiting.removeAll(keepingCapacity: slot.waiting.count < 1_024)
                slot.waitingHead = 0
            } else if slot.waitingHead > 256, slot.waitingHead * 2 > slot.waiting.count {
                slot.waiting.removeFirst(slot.waitingHead)
                slot.waitingHead = 0
            }
        }
        if now - lastSweep >= Self.forgetAfter {
            lastSweep = now
            slots = slots.filter { _, slot in slot.quietSince.map { now - $0 < Self.forgetAfter } ?? true }
        }
        return ready
    }

    /// Every transfer still waiting, taken out: the driver is stopping.
    mutating func drain() -> [CurlTransfer] {
        defer { slots.removeAll() }
        return slots.values.flatMap { $0.waiting[$0.waitingHead...].map(\.transfer) }
    }

    /// Whether any transfer waits.
    var anyWaiting: Bool { slots.values.contains { $0.hasWaiting } }
}
