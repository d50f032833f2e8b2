internal import PushSealPrimitives

/// The payload contract that a backend and its app share (docs/contract-v1.md): the schema
/// versions the app reads, and the routes a push may name, each with the kind of its `id` and
/// the templates the server fills `thread-id` and `apns-collapse-id` from.
///
/// ```json
/// {"schema_versions": [1, 2],
///  "routes": {"order": {"id": "uuid", "thread-id": "order:{id}", "collapse-id": "order:{id}"},
///             "chat": {"id": "token", "links": ["avatar_url"], "text": ["subject"]},
///             "inbox": {}}}
/// ```
///
/// ``route(for:)`` is the check both sides run: the server before sealing, the device after
/// opening. The server also refuses links in custom members (``linkViolation(in:route:)``).
public struct PayloadContract: Sendable {
    /// One route of the contract.
    public struct RouteDefinition: Sendable, Hashable {
        /// The kind of the route's `id`; nil when the route takes no id.
        public let idKind: RouteIDKind?
        /// The `thread-id` template (`{id}` and `{type}` are filled in), if any.
        public let threadIDTemplate: String?
        /// The `apns-collapse-id` template, if any.
        public let collapseIDTemplate: String?
        /// Custom members that may hold links on this route.
        public let allowedLinks: Set<ExactText>
        /// Custom members declared as plain text on this route: not searched for links, so that
        /// a value may contain a colon (`"Re: 10:30"`).
        public let plainText: Set<ExactText>
    }

    /// The schema versions the app reads.
    public let schemaVersions: Set<Int>
    /// The routes, by `type`.
    public let routes: [ExactText: RouteDefinition]
    /// Custom members that may hold links on every route.
    public let allowedLinks: Set<ExactText>
    /// Custom members declared as plain text on every route.
    public let plainText: Set<ExactText>

    /// The payload members the contract itself defines.
    public static let contractMembers = ["type", "id", "event_id", "schema_version"]
    /// Members checked by their own format, not searched for links: `media`, a media-v1
    /// descriptor whose `url` follows the media URL rule (media-v1.md).
    public static let typedMembers = ["media"]

    /// The largest `event_id`, in bytes.
    public static let maximumEventIDLength = 128

    /// Reads a contract file.
    /// - Throws: `PushSealError.Code.invalidPayload` naming the JSON path of what is wrong.
    public init(json bytes: some Collection<UInt8>) throws {
        let root: JSONObject
        do {
            guard let object = try JSONParser.parse(bytes).objectValue else {
                throw PushSealError(.invalidPayload, "the contract must be a JSON object")
            }
            root = object
        } catch let error as JSONParseError {
            throw PushSealError(.invalidPayload, "the contract is not JSON: \(error)")
        }
        try Self.refuseUnknown(root, known: ["schema_versions", "routes", "links", "text"], at: "$")
        guard case .array(let versions)? = root["schema_versions"], !versions.isEmpty else {
            throw PushSealError(.invalidPayload, "$.schema_versions must be a non-empty array of integers")
        }
        schemaVersions = Set(
            try versions.enumerated().map { index, value in
                guard let version = value.numberValue?.intValue, version >= 0 else {
                    throw PushSealError(.invalidPayload, "$.schema_versions[\(index)] must be an integer ≥ 0")
                }
                return version
            })
        allowedLinks = try Self.names(root["links"], at: "$.links")
        plainText = try Self.names(root["text"], at: "$.text")
        guard let routeObjects = root["routes"]?.objectValue, routeObjects.count > 0 else {
            throw PushSealError(.invalidPayload, "$.routes must be an object with at least one route")
        }
        var routes: [ExactText: RouteDefinition] = [:]
        for (type, value) in routeObjects {
            let path = "$.routes.\(type)"
            guard RouteIDKind.token.canonicalID(.string(type)) != nil else {
                throw PushSealError(.invalidPayload, "\(path): a route name is 1 to 64 characters from A-Z a-z 0-9 _ -")
            }
            routes[ExactText(type)] = try Self.route(value, at: path)
        }
        self.routes = routes
    }

    private static func route(_ value: JSONValue, at path: String) throws -> RouteDefinition {
        guard let object = value.objectValue else { throw PushSealError(.invalidPayload, "\(path) must be an object") }
        try refuseUnknown(object, known: ["id", "thread-id", "collapse-id", "links", "text"], at: path)
        var kind: RouteIDKind?
        if let value = object["id"] {
            guard let name = value.stringValue,
                let named = RouteIDKind.allCases.first(where: { $0.rawValue.isExactly(name) })
            else {
                throw PushSealError(.invalidPayload, "\(path).id must be \"uuid\", \"integer\" or \"token\"")
            }
            kind = named
        }
        func template(_ member: String) throws -> String? {
            guard let value = object[member] else { return nil }
            guard let text = value.stringValue, !text.isEmpty else {
                throw PushSealError(.invalidPayload, "\(path).\(member) must be a non-empty string")
            }
            let stripped = text.replacingPlaceholders(id: "", type: "")
            guard !stripped.contains("{") && !stripped.contains("}") else {
                throw PushSealError(.invalidPayload, "\(path).\(member): the only placeholders are {id} and {type}")
            }
            if text.contains("{id}") && kind == nil {
                throw PushSealError(.invalidPayload, "\(path).\(member) uses {id}, but the route takes no id")
            }
            return text
        }
        return RouteDefinition(
            idKind: kind, threadIDTemplate: try template("thread-id"), collapseIDTemplate: try template("collapse-id"),
            allowedLinks: try names(object["links"], at: "\(path).links"),
            plainText: try names(object["text"], at: "\(path).text"))
    }

    private static func names(_ value: JSONValue?, at path: String) throws -> Set<ExactText> {
        guard let value else { return [] }
        guard case .array(let elements) = value, elements.allSatisfy({ $0.stringValue != nil }) else {
            throw PushSealError(.invalidPayload, "\(path) must be an array of member names")
        }
        return Set(elements.compactMap(\.stringValue).map(ExactText.init))
    }

    private static func refuseUnknown(_ object: JSONObject, known: [String], at path: String) throws {
        for (name, _) in object where !known.contains(where: { $0.isExactly(name) }) {
            throw PushSealError(
                .invalidPayload,
                "\(path).\(name) is not a member of the contract (known: \(known.joined(separator: ", ")))")
        }
    }

    /// Checks `content` (a payload, before sealing or after opening) and returns its route.
    /// Checked in this order: `schema_version`, `type`, `id`, `event_id`.
    public func route(for content: JSONObject) throws(RouteError) -> Route {
        guard let version = content["schema_version"]?.numberValue?.intValue, schemaVersions.contains(version) else {
            let supported = schemaVersions.sorted().map(String.init).joined(separator: ", ")
            throw RouteError(
                .unsupportedSchema, "$.schema_version",
                content["schema_version"] == nil
                    ? "is missing (supported: \(supported))" : "is not one of the supported versions (\(supported))")
        }
        guard let type = content["type"]?.stringValue, let definition = routes[ExactText(type)] else {
            throw RouteError(
                .unknownType, "$.type",
                content["type"] == nil ? "is missing" : "is not a route of the contract (\(knownTypes))")
        }
        var id: String?
        switch (definition.idKind, content["id"]) {
        case (nil, nil): id = nil
        case (nil, .some): throw RouteError(.badID, "$.id", "is not taken by the route \"\(type)\"")
        case (let kind?, nil):
            throw RouteError(.badID, "$.id", "is missing: the route \"\(type)\" takes \(kind.description)")
        case (let kind?, let value?):
            guard let canonical = kind.canonicalID(value) else {
                throw RouteError(.badID, "$.id", "must be \(kind.description) for the route \"\(type)\"")
            }
            id = canonical
        }
        guard let eventID = content["event_id"]?.stringValue, !eventID.isEmpty,
            eventID.utf8.count <= Self.maximumEventIDLength,
            eventID.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
        else {
            throw RouteError(
                .missingEventID, "$.event_id",
                "must be a string of 1 to \(Self.maximumEventIDLength) printable ASCII characters (U+0020 to U+007E)")
        }
        return Route(type: type, id: id, schemaVersion: version, eventID: eventID)
    }

    private var knownTypes: String {
        routes.keys.map(\.text).sorted().joined(separator: ", ")
    }
}

extension PayloadContract.RouteDefinition {
    /// `template` with `{id}` and `{type}` filled in for `route`.
    public func fill(_ template: String, for route: Route) -> String {
        template.replacingPlaceholders(id: route.id ?? "", type: route.type)
    }
}

extension String {
    fileprivate func replacingPlaceholders(id: String, type: String) -> String {
        var result = ""
        var rest = self[...]
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
