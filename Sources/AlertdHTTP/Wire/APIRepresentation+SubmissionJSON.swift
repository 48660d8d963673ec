import FoundationEssentials
import AlertModel

extension APIRepresentation {
    /// The answer to one alert `POST /v1/alerts`, by hand when it was
    /// accepted: it is written for every request, where ``encoder`` was a
    /// cost per alert. The bytes are the encoder's (a test holds them to it).
    package static func json(_ item: SubmissionItem, status: Int) -> HTTPResponse {
        guard let text = item.acceptedJSON else { return encoding(item, status: status) }
        return .json(status: status, body: Data(text.utf8))
    }

    /// The answer to a batch `POST /v1/alerts`, by hand when no item has an error.
    package static func json(_ batch: BatchResult, status: Int) -> HTTPResponse {
        var results = "["
        for (i, item) in batch.results.enumerated() {
            guard let text = item.acceptedJSON else { return encoding(batch, status: status) }
            if i > 0 { results += "," }
            results += text
        }
        results += "]"
        var o = JSONObject()
        o.int("accepted", Int64(batch.accepted))
        o.int("rejected", Int64(batch.rejected))
        o.raw("results", results)
        return .json(status: status, body: o.jsonData)
    }
}

extension APIRepresentation.SubmissionItem {
    /// What ``APIRepresentation/encoder`` writes for an item without an
    /// error; nil for one with an error, whose words the encoder writes.
    /// Ids, states and numbers need no escape the two writers disagree on.
    package var acceptedJSON: String? {
        guard error == nil else { return nil }
        var o = JSONObject()
        o.int("index", index.map(Int64.init))
        o.string("id", id?.rawValue)
        o.string("state", state?.rawValue)
        o.raw("deduplicated", deduplicated.map { $0 ? "true" : "false" })
        return o.json
    }
}
