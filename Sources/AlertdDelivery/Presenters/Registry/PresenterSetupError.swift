/// A presenter that cannot be made from its settings, with a sentence a
/// person can act on.
public struct PresenterSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
