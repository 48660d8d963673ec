import AlertModel

extension AlertSpec.Builder {
    /// A builder read from `object` as the API reads a body: tests that
    /// make their alert as a dictionary write it out as JSON first.
    init(jsonObject object: [String: Any]) {
        // The tests' dictionaries are JSON by construction.
        try! self.init(json: JSONObject.text(of: object))
    }
}
