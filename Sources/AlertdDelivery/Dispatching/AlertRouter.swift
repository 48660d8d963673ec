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

    /// Every presenter that hears of `spec`, each once, in route order:
    /// by a delivery of its own or through a group.
    public func presenters(for spec: AlertSpec) -> [String] {
        Self.presenters(of: route(spec))
    }

    /// Every presenter of `plan`, each once: its own, then its groups'.
    public static func presenters(of plan: Plan) -> [String] {
        var all = plan.presenters
        for group in plan.groups {
            for name in group.settings.presenters where !all.contains(name) { all.append(name) }
        }
        return all
    }

    /// What the routes make of `spec`.
    public struct Plan: Sendable, Equatable {
        /// The ungrouped routes' presenters: one delivery each, at once.
        public var presenters: [String] = []
        /// The escalation of the first matching route that has one.
        public var escalation: Escalation?
        /// The groups of the grouped routes that matched.
        public var groups: [AlertGroupMembership] = []
    }

    /// Presenters for `spec` (each once, in route order), the escalation of
    /// the first matching route that has one, and the groups it joins.
    public func route(_ spec: AlertSpec) -> Plan {
        var plan = Plan()
        var matched = false
        for (i, route) in routes.enumerated() where route.matches(spec) {
            matched = true
            add(route, named: route.name ?? "routes[\(i)]", spec, to: &plan)
            if plan.escalation == nil { plan.escalation = route.escalation }
            if !route.continueMatching { break }
        }
        if !matched { add(defaultRoute, named: defaultRoute.name ?? "default_route", spec, to: &plan) }
        return plan
    }

    private func add(_ route: RouteDefinition, named name: String, _ spec: AlertSpec, to plan: inout Plan) {
        if let grouping = route.grouping {
            plan.groups.append(grouping.membership(of: spec, route: name, presenters: route.presenters))
        } else {
            for presenter in route.presenters where !plan.presenters.contains(presenter) { plan.presenters.append(presenter) }
        }
    }
}
