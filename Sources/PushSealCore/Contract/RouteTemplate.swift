/// A route's `thread-id` or `collapse-id` template (contract-v1.md): text with the placeholders
/// `{id}` and `{type}`, checked when the contract is loaded so that every payload the route
/// accepts fills it into a valid value.
enum RouteTemplate {
    /// Which value a template makes.
    enum Target {
        /// `aps.thread-id`: any non-empty string.
        case threadID
        /// The `apns-collapse-id` header: 1 to 64 bytes without a control character.
        case collapseID
    }

    /// What a template of one route can be filled with.
    struct Context {
        /// The route's name, which `{type}` becomes.
        let routeName: String
        /// The route's id kind, whose ids `{id}` becomes; nil when the route takes none.
        let idKind: RouteIDKind?

        /// The template in `value`, checked for `target`; nil when there is none.
        /// - Throws: `PushSealError.Code.invalidPayload` at `path`: not a non-empty string, a
        ///   brace that is not a placeholder, `{id}` on a route without ids, or a collapse id
        ///   that holds a control character or can be longer than 64 bytes.
        func read(_ value: JSONValue?, as target: Target, at path: JSONPath) throws -> String? {
            guard let value else { return nil }
            guard let text = value.stringValue, !text.isEmpty else {
                throw PayloadContract.invalid(path, "must be a non-empty string")
            }
            let literal = RouteTemplate.fill(text, id: "", type: "")
            guard !literal.contains("{") && !literal.contains("}") else {
                throw PayloadContract.invalid(
                    path, "has a brace that is not a placeholder: the only ones are {id} and {type}")
            }
            let idCount = text.ranges(of: "{id}").count
            if idCount > 0 && idKind == nil {
                throw PayloadContract.invalid(path, "uses {id}, but the route takes no id")
            }
            guard case .collapseID = target else { return text }
            guard !APNsHeaderText.hasControlCharacter(literal) else {
                throw PayloadContract.invalid(path, "holds a control character, which no apns-collapse-id may hold")
            }
            let longestID = idKind?.maximumLength ?? 0
            let longest =
                literal.utf8.count + idCount * longestID + text.ranges(of: "{type}").count * routeName.utf8.count
            guard longest <= APNsHeaderText.maximumCollapseIDLength else {
                throw PayloadContract.invalid(
                    path,
                    "can fill to \(longest) bytes (with an id of \(longestID) characters), and apns-collapse-id is at most "
                        + "\(APNsHeaderText.maximumCollapseIDLength)")
            }
            return text
        }
    }

    /// `template` with every `{id}` and `{type}` replaced.
    static func fill(_ template: String, id: String, type: String) -> String {
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let tail = rest[open...]
            if tail.hasPrefix("{id}") {
                result += id
                rest = tail.dropFirst(4)
            } else if tail.hasPrefix("{type}") {
                result += type
                rest = tail.dropFirst(6)
            } else {
                result += "{"
                rest = tail.dropFirst()
            }
        }
        return result + rest
    }
}
