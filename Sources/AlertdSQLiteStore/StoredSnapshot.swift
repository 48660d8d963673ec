import AlertdStore

/// A group notification's snapshot as a claim finds it: the value its
/// flush made (``GroupSnapshotCache``), or the row's text.
enum StoredSnapshot: Sendable {
    case kept(GroupSnapshot)
    case text(String)

    /// Each as a value, the texts decoded once the writer is free, a text
    /// that recurs once (``GroupSnapshot/decodeEach(_:)``).
    static func values(_ stored: [StoredSnapshot?]) -> [GroupSnapshot?] {
        let decoded = GroupSnapshot.decodeEach(stored.map { if case .text(let text)? = $0 { text } else { nil } })
        return zip(stored, decoded).map { stored, decoded in
            if case .kept(let snapshot)? = stored { snapshot } else { decoded }
        }
    }
}
