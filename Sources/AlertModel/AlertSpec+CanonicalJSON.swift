extension AlertSpec {
    /// The spec as compact JSON with sorted keys: what the store keeps. The
    /// store reads it back with `fromStorage`; the ordinary `Decodable`
    /// conformance reads it too, and a test holds all three to each other.
    public var canonicalJSON: String {
        var o = JSONObject(capacity: 512)
        write(to: &o)
        return o.json
    }

    /// Writes the spec's fields into `object`: the one place their JSON
    /// names and forms are written by hand (the store, webhooks). `links`
    /// adds each action's signed decision link.
    /// Fields go in key order, which spares the writer a sort.
    package func write(to object: inout JSONObject, links: [ActionKind: String] = [:]) {
        object.object("cancel", cancel) { $1.write(to: &$0, link: links[.cancel]) }
        object.object("confirm", confirm) { $1.write(to: &$0, link: links[.confirm]) }
        object.string("dedup_key", dedupKey)
        object.int("expires_after", expiresAfter?.seconds)
        object.strings("labels", labels)
        object.string("message", message)
        object.string("severity", severity.rawValue)
        object.string("title", title)
    }
}

extension AlertAction {
    /// Writes `"label"`, `"method"` and `"url"` into `o`, and `"link"`
    /// when there is one.
    package func write(to o: inout JSONObject, link: String? = nil) {
        o.string("label", label)
        o.string("link", link)
        o.string("method", method.rawValue)
        o.string("url", url)
    }
}
