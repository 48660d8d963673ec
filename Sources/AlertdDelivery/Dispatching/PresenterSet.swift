/// The presenters the dispatcher delivers to, by name, with how many
/// deliveries each may have in flight. Replaced whole on reload.
public struct PresenterSet: Sendable {
    public struct Entry: Sendable {
        public let presenter: any AlertPresenter
        public let maxConcurrency: Int

        public init(presenter: any AlertPresenter, maxConcurrency: Int) {
            self.presenter = presenter
            self.maxConcurrency = max(1, maxConcurrency)
        }
    }

    public private(set) var entries: [String: Entry]

    public init(_ entries: [Entry]) {
        self.entries = Dictionary(entries.map { ($0.presenter.name, $0) }, uniquingKeysWith: { _, last in last })
    }

    public subscript(name: String) -> Entry? { entries[name] }

    public var names: [String] { entries.keys.sorted() }
}
