import Foundation
import Testing
@testable import AlertModel
@testable import AlertdStore
@testable import AlertdSQLiteStore

/// The snapshots SQLite's writer keeps for the next claim: taken once,
/// forgotten when dropped, and never more than the limits allow.
@Suite struct GroupSnapshotCacheTests {
    let group = AlertGroupID(route: "r", labels: [])

    func snapshot(_ alerts: Int, sequence: Int = 1) throws -> GroupSnapshot {
        let alert = Alert(spec: try AlertSpec.Builder().title("Disk full").build().get(), at: Date(timeIntervalSince1970: 1_800_000_000))
        return GroupSnapshot(notification: AlertGroupNotification(groupID: group, route: "r", groupLabels: [], sequence: sequence,
                                                                  reason: .first, firing: Array(repeating: alert, count: alerts)),
                             thread: nil)
    }

    func id(_ sequence: Int, _ presenter: String = "chat") -> DeliveryID {
        .group(group, generation: 1, sequence, presenter: presenter)
    }

    @Test func aKeptSnapshotIsTakenOnceAndTheLastKeptWins() throws {
        let cache = GroupSnapshotCache()
        cache.keep(try snapshot(1), for: id(1))
        cache.keep(try snapshot(2), for: id(1))
        #expect(cache.take(id(1))?.notification.firing.count == 2)
        #expect(cache.take(id(1)) == nil)
        cache.keep(try snapshot(1), for: id(2))
        cache.forget(id(2))
        #expect(cache.take(id(2)) == nil)
    }

    @Test func theOldestGoFirstPastTheCountOrTheAlertsKept() throws {
        let cache = GroupSnapshotCache()
        for n in 1...(GroupSnapshotCache.limit + 1) { cache.keep(try snapshot(1, sequence: n), for: id(n)) }
        #expect(cache.take(id(1)) == nil)
        #expect(cache.take(id(2)) != nil)
        #expect(cache.take(id(GroupSnapshotCache.limit + 1)) != nil)

        let big = GroupSnapshotCache.alertLimit / 2 - 1
        let fresh = GroupSnapshotCache()
        for n in 1...3 { fresh.keep(try snapshot(big, sequence: n), for: id(n)) }
        #expect(fresh.take(id(1)) == nil)
        #expect(fresh.take(id(2))?.notification.firing.count == big)
        #expect(fresh.take(id(3))?.notification.firing.count == big)
        // One larger than all the room is not kept, and drops nothing.
        fresh.keep(try snapshot(1), for: id(4))
        fresh.keep(try snapshot(GroupSnapshotCache.alertLimit + 1), for: id(5))
        #expect(fresh.take(id(5)) == nil)
        #expect(fresh.take(id(4)) != nil)
    }
}
