/// A value from raw input (a command-line string, a JSON field) on its way
/// into the builder. Keeping "absent" apart from "present but unparseable"
/// lets the builder say exactly what was wrong with what the person typed.
public enum PartialValue<Value: Sendable & Equatable>: Sendable, Equatable {
    /// Not given at all.
    case missing
    /// Given, but it could not be read as a `Value`; the error says why.
    case invalid(AlertSpecError)
    /// Given and read.
    case present(Value)

    /// The value when present.
    public var value: Value? {
        if case .present(let v) = self { return v }
        return nil
    }

    /// True unless missing.
    public var isGiven: Bool {
        if case .missing = self { return false }
        return true
    }
}
