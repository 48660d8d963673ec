import FoundationEssentials
import AlertModel

extension APIRepresentation {
    /// The answer to one alert `POST /v1/alerts`, by hand when it was
    /// accepted: it is written for every request, where ``encoder`` was a
    /// cost per alert. The bytes are the encoder's (a test holds them to it).
    package static func json(_ item: SubmissionItem, status: Int) -> HTTPResponse {
        guard let object = item.acceptedObject else { return encoding(item, status: status) }
        return .json(status: status, body: object.jsonData)
    }

    /// The answer to a batch `POST /v1/alerts`, by hand when no item has an
    /// error: the items written one after another into one buffer.
    package static func json(_ batch: BatchResult, status: Int) -> HTTPResponse {
        var results: [UInt8] = []
        results.reserveCapacity(2 + batch.results.count * 96)
        results.append(UInt8(ascii: "["))
        for (i, item) in batch.results.enumerated() {
            guard let object = item.acceptedObject else { return encoding(batch, status: status) }
            if i > 0 { results.append(UInt8(ascii: ",")) }
            object.write(into: &results)
        }
        results.append(UInt8(ascii: "]"))
        var o = JSONObject()
        o.int("accepted", Int64(batch.accepted))
        o.int("rejected", Int64(batch.rejected))
        o.raw("results", bytes: results)
        return .json(status: status, body: o.jsonData)
    }
}

extension APIRepresentation.SubmissionItem {
    /// What ``APIRepresentation/encoder`` writes for an item without an
    /// error; nil for one with an error, whose words the encoder writes.
    /// Ids, states and numbers need no escape the two writers disagree on.
    /// Fields in key order, so the writer need not sort them.
    package var acceptedObject: JSONObject? {
        guard error == nil else { return nil }
        var o = JSONObject()
        o.raw("deduplicated", deduplicated.map { $0 ? "true" : "false" })
        o.string("id", id?.rawValue)
        o.int("index", index.map(Int64.init))
        o.string("state", state?.rawValue)
        return o
    }
}
