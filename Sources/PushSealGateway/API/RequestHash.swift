internal import PushSealCore
internal import PushSealPrimitives

/// The SHA-256 of a request body in a canonical form (every object's members sorted by name,
/// byte by byte; values as written, numbers included), so that an `idempotency_key` used again
/// can be told apart: the same request with its members in another order is the same, anything
/// else is a different request (gateway-v1.md, "Pushes").
enum RequestHash {
    /// The hash of `body`.
    static func of(_ body: JSONObject) -> [UInt8] {
        SHA256.hash(JSONWriter.bytes(canonical(.object(body))))
    }

    /// `value` with every object's members sorted by name.
    static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(
                JSONObject(
                    object.members.map { ($0.name, canonical($0.value)) }.sorted {
                        Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8))
                    }))
        case .array(let elements): return .array(elements.map(canonical))
        default: return value
        }
    }
}
