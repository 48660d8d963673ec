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
        // By index: `for route in routes` copied each route, a retain and
        // release of its every field, for every route and alert (200 routes
        // with regexes spent 1.8× Alertmanager's CPU, most of it there).
        for i in routes.indices where routes[i].matches(spec) {
            matched = true
            add(routes[i], named: Self.name(of: routes[i], at: i), spec, to: &plan)
            if plan.escalation == nil { plan.escalation = routes[i].escalation }
            if !routes[i].continueMatching { break }
        }
        if !matched { add(defaultRoute, named: Self.name(of: defaultRoute, at: nil), spec, to: &plan) }
        return plan
    }

    /// Each grouped route's settings, by the route name its groups carry:
    /// what the groups already open follow once a reload changed them.
    public var groupSettings: [String: AlertGroupSettings] {
        var out: [String: AlertGroupSettings] = [:]
        for (i, route) in routes.enumerated() {
            if let grouping = route.grouping { out[Self.name(of: route, at: i)] = grouping.settings(presenters: route.presenters) }
        }
        if let grouping = defaultRoute.grouping { out[Self.name(of: defaultRoute, at: nil)] = grouping.settings(presenters: defaultRoute.presenters) }
        return out
    }

    /// A route's `name`, or its place: `routes[N]`, or `default_route` (`at` nil).
    private static func name(of route: RouteDefinition, at index: Int?) -> String {
        route.name ?? index.map(AlertGroup.unnamedRoute) ?? "default_route"
    }

    private func add(_ route: RouteDefinition, named name: String, _ spec: AlertSpec, to plan: inout Plan) {
        if let grouping = route.grouping {
            plan.groups.append(grouping.membership(of: spec, route: name, presenters: route.presenters))
        } else {
            for presenter in route.presenters where !plan.presenters.contains(presenter) { plan.presenters.append(presenter) }
        }
    }
}
