import Foundation
import Testing
@testable import AlertModel

/// Group ids are stable, and the summary alert every presenter can show
/// says what a group notification says.
@Suite struct AlertGroupNotificationTests {
    func alert(_ title: String, severity: Severity = .warning, actions: Bool = false, at offset: TimeInterval = 0) throws -> Alert {
        var b = AlertSpec.Builder().title(title).severity(severity)
        if actions { b = b.confirm("Expand", handler: "https://ops.example/expand").cancel("Ignore", handler: "https://ops.example/ignore") }
        return Alert(spec: try b.build().get(), at: Date(timeIntervalSince1970: 1_800_000_000 + offset))
    }

    @Test func aGroupIDDependsOnTheRouteAndTheLabelValuesNotTheirOrder() {
        let a = AlertGroupID(route: "nodes", labels: [AlertLabel(name: "rack", value: "7"), AlertLabel(name: "alertname", value: "NodeDown")])
        let b = AlertGroupID(route: "nodes", labels: [AlertLabel(name: "alertname", value: "NodeDown"), AlertLabel(name: "rack", value: "7")])
        #expect(a == b)
        #expect(AlertGroupID(a.rawValue) == a)
        #expect(a.rawValue.count == 18 && a.rawValue.hasPrefix("g-"))
        #expect(a != AlertGroupID(route: "routes[1]", labels: [AlertLabel(name: "alertname", value: "NodeDown"), AlertLabel(name: "rack", value: "7")]))
        #expect(a != AlertGroupID(route: "nodes", labels: [AlertLabel(name: "alertname", value: "NodeDown"), AlertLabel(name: "rack", value: "8")]))
        // A known value: the id must not change between releases, or open groups would split.
        #expect(AlertGroupID(route: "nodes", labels: []).rawValue == "g-" + fnv("nodes"))
        for bad in ["g-123", "G-0123456789abcdef", "g-0123456789ABCDEF", "x-0123456789abcdef"] { #expect(AlertGroupID(bad) == nil) }
    }

    /// FNV-1a 64, written out again here, as the spec of the id.
    func fnv(_ text: String) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test func theSummaryListsTenAlertsWithSeverityRepeatsAndLinksThenCountsTheRest() throws {
        var firing = try (0..<13).map { try alert("Node n\($0) down", severity: $0 == 5 ? .critical : .warning, actions: $0 == 0, at: Double($0)) }
        firing[1].repeats = AlertRepeats(count: 4, lastSeenAt: Date(timeIntervalSince1970: 1_800_000_100))
        var closed = try alert("Node n99 down", at: 100)
        closed.state = .resolved
        let id = AlertGroupID(route: "nodes", labels: [AlertLabel(name: "alertname", value: "NodeDown")])
        let n = AlertGroupNotification(
            groupID: id, route: "nodes", groupLabels: [AlertLabel(name: "rack", value: "7"), AlertLabel(name: "alertname", value: "NodeDown")],
            sequence: 2, reason: .changed, firing: firing, newAlertIDs: [firing[12].id], closed: [closed],
            actionLinks: [firing[0].id: [.confirm: "https://alertd.example/c", .cancel: "https://alertd.example/x"]],
            consoleURL: "https://alertd.example/ui/#/group/\(id)")
        #expect(n.title == "[FIRING:13] alertname=NodeDown rack=7")
        let summary = n.summaryAlert
        #expect(summary.spec.title == n.title)
        #expect(summary.spec.severity == .critical)
        #expect(summary.spec.labels == ["alertname": "NodeDown", "rack": "7"])
        #expect(summary.spec.confirm == nil && summary.spec.cancel == nil)
        #expect(summary.state == .open)
        let text = try #require(summary.spec.message)
        #expect(text.hasPrefix("13 firing, 1 new, 1 closed since the last notification."))
        #expect(text.contains("- [WARNING] Node n0 down\n  Expand: https://alertd.example/c\n  Ignore: https://alertd.example/x"))
        #expect(text.contains("- [WARNING] Node n1 down (repeated 4×"))
        #expect(text.contains("- [CRITICAL] Node n5 down"))
        #expect(!text.contains("Node n10 down"))
        #expect(text.contains("+3 more"))
        #expect(text.contains("Closed:\n- [RESOLVED] Node n99 down"))
        #expect(text.hasSuffix("All alerts of this group: https://alertd.example/ui/#/group/\(id)"))

        let over = AlertGroupNotification(groupID: id, route: "nodes", groupLabels: [], sequence: 3, reason: .resolved,
                                          firing: [], closed: [closed])
        #expect(over.title == "[RESOLVED] Node n99 down")
        #expect(over.summaryAlert.state == .resolved)
        #expect(over.summaryAlert.id == closed.id)

        // What it fired with closed, the rest held: a change with nothing firing reads as resolved.
        let held = AlertGroupNotification(groupID: id, route: "nodes", groupLabels: [], sequence: 4, reason: .changed,
                                          firing: [], closed: [closed])
        #expect(held.nothingFires)
        #expect(held.title == "[RESOLVED] Node n99 down")
        #expect(held.summaryAlert.state == .resolved)
        #expect(!n.nothingFires)
    }
}
