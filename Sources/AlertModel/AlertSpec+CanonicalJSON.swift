extension AlertSpec {
    /// The spec as compact JSON with sorted keys: what the store keeps. It is
    /// decoded with the ordinary `Decodable` conformance, and a test holds
    /// the two to each other.
    public var canonicalJSON: String {
        var o = JSONObject()
        write(to: &o)
        return o.json
    }

    /// Writes the spec's fields into `object`: the one place their JSON
    /// names and forms are written by hand (the store, webhooks). `links`
    /// adds each action's signed decision link.
    package func write(to object: inout JSONObject, links: [ActionKind: String] = [:]) {
        object.string("title", title)
        object.string("message", message)
        object.string("severity", severity.rawValue)
        object.strings("labels", labels)
        for kind in ActionKind.allCases {
            object.object(kind.rawValue, action(kind).map { $0.json(link: links[kind]) })
        }
        object.string("dedup_key", dedupKey)
        object.int("expires_after", expiresAfter?.seconds)
    }
}

extension AlertAction {
    /// `{"label": …, "method": …, "url": …}`, with `link` when there is one.
    package func json(link: String? = nil) -> JSONObject {
        var o = JSONObject()
        o.string("label", label)
        o.string("method", method.rawValue)
        o.string("url", url)
        o.string("link", link)
        return o
    }
}
