/// Whom a delivery is for: a configured presenter, or the handler of an
/// alert's action, called once a person has decided.
public enum DeliveryKind: Sendable, Hashable, Comparable {
    case presenter(String)
    case handler(ActionKind)

    /// The name the API, logs and metrics show: the presenter's name, or
    /// `handler:confirm`. Presenter names cannot contain a colon, so the two
    /// never clash.
    public var name: String {
        switch self {
        case .presenter(let name): name
        case .handler(let action): "handler:\(action.rawValue)"
        }
    }

    /// Reads back what ``name`` wrote.
    public init(name: String) {
        if name.hasPrefix("handler:"), let action = ActionKind(rawValue: String(name.dropFirst("handler:".count))) {
            self = .handler(action)
        } else {
            self = .presenter(name)
        }
    }

    /// The action whose handler this delivery calls, if it calls one.
    public var action: ActionKind? {
        if case .handler(let action) = self { action } else { nil }
    }

    /// `presenter` or `handler`: what the store records in its `kind` column.
    public var category: String { action == nil ? "presenter" : "handler" }

    public static func < (a: DeliveryKind, b: DeliveryKind) -> Bool { a.name < b.name }
}
