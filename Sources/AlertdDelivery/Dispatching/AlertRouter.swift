import AlertModel
import AlertdStore

/// Chooses presenters for an alert: routes in order, the first match wins
/// unless it says `continue`; the default route takes what nothing matched.
public struct AlertRouter: Sendable, Equatable {
    public var routes: [RouteDefinition]
    public var defaultRoute: RouteDefinition

    public init(routes: [RouteDefinition], defaultRoute: RouteDefinition) {
        self.routes = routes
        self.defaultRoute = defaultRoute
    }

    /// Presenter names for `spec`, each once, in route order.
    public func presenters(for spec: AlertSpec) -> [String] { route(spec).presenters }

    /// Presenters for `spec`, and the escalation of the first matching
    /// route that has one.
    public func route(_ spec: AlertSpec) -> (presenters: [String], escalation: Escalation?) {
        var chosen: [String] = []
        var escalation: Escalation?
        var matched = false
        for route in routes where route.matches(spec) {
            matched = true
            for name in route.presenters where !chosen.contains(name) { chosen.append(name) }
            if escalation == nil { escalation = route.escalation }
            if !route.continueMatching { break }
        }
        if !matched { chosen = defaultRoute.presenters }
        return (chosen, escalation)
    }
}
