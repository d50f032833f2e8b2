internal import PushSealCore

/// A delivery's headers as stored: a JSON array of `[name, value]` pairs.
package enum OutboxHeaders {
    /// The stored text of `headers`.
    package static func text(_ headers: [(name: String, value: String)]) -> String {
        JSONWriter.string(.array(headers.map { .array([.string($0.name), .string($0.value)]) }))
    }

    /// The headers of stored `text`.
    package static func parse(_ text: String) -> [(name: String, value: String)] {
        guard case .array(let pairs)? = try? JSONParser.parse(text) else { return [] }
        return pairs.compactMap { pair in
            guard case .array(let parts) = pair, parts.count == 2, let name = parts[0].stringValue,
                let value = parts[1].stringValue
            else { return nil }
            return (name, value)
        }
    }
}
