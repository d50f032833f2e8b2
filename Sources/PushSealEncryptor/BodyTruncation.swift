package import PushSealCore

/// Shortens the alert body of a payload until its serialised form (or what is made of it: a Web
/// Push message's content) fits a byte budget.
///
/// The body is cut on a grapheme-cluster boundary (Swift `Character`s), so no emoji or combining
/// sequence is split, and ends in `…`. The bytes to remove are computed from the JSON-escaped
/// size of each character, so one pass normally suffices; a few more are allowed for safety.
package enum BodyTruncation {
    static let ellipsis = "…"
    private static let maximumPasses = 4

    /// The payload with a shorter body whose size, as `measure` gives it (its serialisation by
    /// default), is at most `budget` bytes. `measure` must grow byte for byte with the body's
    /// JSON-escaped form.
    /// - Throws: `PushSealError.Code.payloadTooLarge` when there is no body to shorten, or
    ///   when even an empty body does not fit.
    package static func shorten(
        _ payload: JSONObject, toFit budget: Int,
        measuredBy measure: (JSONObject) -> Int = { JSONWriter.bytes(.object($0)).count },
        tooLarge: () -> PushSealError
    ) throws -> JSONObject {
        guard var aps = payload["aps"]?.objectValue, let alert = aps["alert"] else { throw tooLarge() }
        var alertObject = alert.objectValue
        guard let original = alertObject?["body"]?.stringValue ?? alert.stringValue else { throw tooLarge() }

        var kept = Substring(original)
        var candidate = payload
        for _ in 0..<maximumPasses {
            let excess = measure(candidate) - budget
            if excess <= 0 { return candidate }
            guard !kept.isEmpty else { throw tooLarge() }
            let ellipsisCost = kept.count == original.count ? ellipsis.utf8.count : 0
            var removed = 0
            while removed < excess + ellipsisCost, let last = kept.last {
                removed += escapedSize(last)
                kept.removeLast()
            }
            let body = JSONValue.string(String(kept) + ellipsis)
            if alertObject != nil {
                alertObject?["body"] = body
                aps["alert"] = alertObject.map(JSONValue.object)
            } else {
                aps["alert"] = body
            }
            candidate["aps"] = .object(aps)
        }
        if measure(candidate) <= budget { return candidate }
        throw tooLarge()
    }

    /// The number of bytes `character` takes inside a JSON string.
    static func escapedSize(_ character: Character) -> Int {
        character.utf8.reduce(0) { total, byte in
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09: total + 2
            case 0x00..<0x20: total + 6
            default: total + 1
            }
        }
    }
}
