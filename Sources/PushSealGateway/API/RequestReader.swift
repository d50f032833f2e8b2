internal import PushSealCore

/// The checks every request body shares: exact types, no unknown member, bounded text.
enum RequestReader {
    /// Parses a request body: one JSON object.
    static func object(_ body: [UInt8]) throws(APIError) -> JSONObject {
        do {
            guard let object = try JSONParser.parse(body).objectValue else { throw APIError.notJSON("not an object") }
            return object
        } catch let error as APIError {
            throw error
        } catch {
            throw .notJSON("\(error)")
        }
    }

    /// Refuses the first parameter of `query` (in name order) not in `known`.
    static func refuseUnknown(query: [String: String], _ known: [String]) throws(APIError) {
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidQuery(unknown, "is not a parameter here (known: \(known.joined(separator: ", ")))")
        }
    }

    /// A page's `limit` in `query`: 1 to `maximum`, `fallback` when absent.
    static func pageLimit(_ query: [String: String], fallback: Int, maximum: Int) throws(APIError) -> Int {
        guard let text = query["limit"] else { return fallback }
        guard let value = Int(text), (1...maximum).contains(value) else {
            throw .invalidQuery("limit", "must be an integer from 1 to \(maximum)")
        }
        return value
    }

    /// Refuses the first member of `object` not in `known`.
    static func refuseUnknown(_ object: JSONObject, _ known: [String], at path: JSONPath) throws(APIError) {
        if let name = object.firstMember(notIn: known) {
            throw .invalid(path.member(name), "is not a member here (known: \(known.joined(separator: ", ")))")
        }
    }

    /// A required string member of 1 to `maximum` characters (Unicode scalars, as JSON Schema
    /// counts them) without control characters.
    static func text(_ object: JSONObject, _ name: String, at path: JSONPath, maximum: Int) throws(APIError) -> String {
        guard let text = try optionalText(object, name, at: path, maximum: maximum) else {
            throw .invalid(path.member(name), "is required")
        }
        return text
    }

    /// An optional string member of 1 to `maximum` characters without control characters.
    static func optionalText(_ object: JSONObject, _ name: String, at path: JSONPath, maximum: Int) throws(APIError)
        -> String?
    {
        guard let value = object[name] else { return nil }
        guard let text = value.stringValue, (1...maximum).contains(text.unicodeScalars.count),
            !APNsHeaderText.hasControlCharacter(text)
        else {
            throw .invalid(
                path.member(name), "must be a string of 1 to \(maximum) characters without control characters")
        }
        return text
    }

    /// An optional string member of 1 to `maximum` printable ASCII characters (U+0020 to U+007E).
    static func optionalASCII(_ object: JSONObject, _ name: String, at path: JSONPath, maximum: Int) throws(APIError)
        -> String?
    {
        guard let value = object[name] else { return nil }
        guard let text = value.stringValue, (1...maximum).contains(text.utf8.count),
            text.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
        else {
            throw .invalid(path.member(name), "must be 1 to \(maximum) printable ASCII characters")
        }
        return text
    }

    /// An optional integer member (no fraction, no exponent).
    static func optionalInteger(_ object: JSONObject, _ name: String, at path: JSONPath) throws(APIError) -> Int? {
        guard let value = object[name] else { return nil }
        guard let integer = value.numberValue?.intValue else { throw .invalid(path.member(name), "must be an integer") }
        return integer
    }

    /// An optional member that is `true` or `false`.
    static func optionalBool(_ object: JSONObject, _ name: String, at path: JSONPath) throws(APIError) -> Bool? {
        switch object[name] {
        case nil: return nil
        case .bool(let value)?: return value
        default: throw .invalid(path.member(name), "must be true or false")
        }
    }

    /// An id of the API (a device, a user, a push): 1 to 128 printable ASCII characters but `/`.
    static func isIdentifier(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != 0x2F }
    }
}
