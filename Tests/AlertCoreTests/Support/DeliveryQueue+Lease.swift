import Foundation
@testable import AlertModel
@testable import AlertdStore

extension DeliveryQueue {
    /// ``DeliveryQueue/releaseStaleClaims(claimedBefore:keeping:lease:now:)``
    /// for a test whose lease is the window itself.
    func releaseStaleClaims(claimedBefore: Date, keeping: Set<DeliveryID>, now: Date) async throws(StoreError) -> Int {
        let window = max(0, Int64((now.timeIntervalSince(claimedBefore) * 1000).rounded()))
        return try await releaseStaleClaims(claimedBefore: claimedBefore, keeping: keeping, lease: .milliseconds(window), now: now)
    }
}
