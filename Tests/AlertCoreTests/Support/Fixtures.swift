import Foundation
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdLogging
@testable import AlertdDelivery
@testable import AlertdClient

/// Alerts with a fixed id and time, so rendered output can be pinned.
enum Fixtures {
    static let id = AlertID("01972b3c-8a00-7123-8456-0123456789ab")!
    /// 2025-06-01 12:00:00 UTC.
    static let created = Date(timeIntervalSince1970: 1_748_779_200)

    static let diskFull: Alert = {
        let spec = try! AlertSpec.Builder()
            .title("Disk full")
            .message("/var at 97% on db1. Writes will start failing when it reaches 100%, so expand the volume or clean up old logs.\n\nRunbook: https://ops.example/runbooks/disk-full-on-database-hosts")
            .severity(.critical)
            .labels(["host": "db1", "env": "prod", "team": "storage"])
            .confirm("Expand", handler: "https://ops.example/expand")
            .cancel("Ignore", handler: "https://ops.example/ignore")
            .dedupKey("disk-full:db1")
            .expires(after: .minutes(30))
            .build().get()
        return Alert(id: id, spec: spec, createdAt: created)
    }()

    static let minimal: Alert = {
        let spec = try! AlertSpec.Builder().title("Backup finished").build().get()
        return Alert(id: id, spec: spec, createdAt: created)
    }()

    static let delivery = DeliveryContext(deliveryID: "d-1", attempt: 2)
}
