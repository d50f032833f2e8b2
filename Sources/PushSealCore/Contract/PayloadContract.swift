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

    /// Reads a contract file: one JSON object (no duplicate member, byte-order mark or trailing
    /// data), every member and value as contract-v1.md says.
    /// - Throws: `PushSealError.Code.invalidPayload` naming the JSON path of what is wrong (or, for
    ///   text that is not JSON, the byte offset).
    public init(json bytes: some Collection<UInt8>) throws {
        let root: JSONObject
        do {
            guard let object = try JSONParser.parse(bytes).objectValue else {
                throw Self.invalid(.root, "must be a JSON object")
            }
            root = object
        } catch let error as JSONParseError {
            throw PushSealError(.invalidPayload, "the contract is not JSON: \(error)")
        }
        try Self.refuseUnknown(root, known: ["schema_versions", "routes", "links", "text"], at: .root)
        let versionsPath = JSONPath.root.member("schema_versions")
        guard case .array(let versions)? = root["schema_versions"], !versions.isEmpty else {
            throw Self.invalid(versionsPath, "must be a non-empty array of integers")
        }
        schemaVersions = Set(
            try versions.enumerated().map { index, value in
                guard let version = value.numberValue?.intValue, version >= 0 else {
                    throw Self.invalid(versionsPath.element(index), "must be an integer from 0 to 2^63-1")
                }
                return version
            })
        allowedLinks = try Self.names(root["links"], at: JSONPath.root.member("links"))
        plainText = try Self.names(root["text"], at: JSONPath.root.member("text"))
        let routesPath = JSONPath.root.member("routes")
        guard let routeObjects = root["routes"]?.objectValue, routeObjects.count > 0 else {
            throw Self.invalid(routesPath, "must be an object with at least one route")
        }
        var routes: [ExactText: RouteDefinition] = [:]
        for (type, value) in routeObjects {
            let path = routesPath.member(type)
            guard RouteIDKind.token.canonicalID(.string(type)) != nil else {
                throw Self.invalid(path, "a route name is 1 to 64 characters from A-Z a-z 0-9 _ -")
            }
            routes[ExactText(type)] = try Self.route(value, named: type, at: path)
        }
        self.routes = routes
    }

    private static func route(_ value: JSONValue, named type: String, at path: JSONPath) throws -> RouteDefinition {
        guard let object = value.objectValue else { throw invalid(path, "must be an object") }
        try refuseUnknown(object, known: ["id", "thread-id", "collapse-id", "links", "text"], at: path)
        var kind: RouteIDKind?
        if let value = object["id"] {
            guard let name = value.stringValue,
                let named = RouteIDKind.allCases.first(where: { $0.rawValue.isExactly(name) })
            else {
                throw invalid(path.member("id"), "must be \"uuid\", \"integer\" or \"token\"")
            }
            kind = named
        }
        let template = RouteTemplate.Context(routeName: type, idKind: kind)
        return RouteDefinition(
            idKind: kind,
            threadIDTemplate: try template.read(object["thread-id"], as: .threadID, at: path.member("thread-id")),
            collapseIDTemplate: try template.read(
                object["collapse-id"], as: .collapseID, at: path.member("collapse-id")),
            allowedLinks: try names(object["links"], at: path.member("links")),
            plainText: try names(object["text"], at: path.member("text")))
    }

    /// A `links` or `text` array: distinct, non-empty names of custom members (never `aps`, the
    /// contract's own members or `media`, which are not searched for links anyway).
    private static func names(_ value: JSONValue?, at path: JSONPath) throws -> Set<ExactText> {
        guard let value else { return [] }
        guard case .array(let elements) = value else { throw invalid(path, "must be an array of member names") }
        var names: Set<ExactText> = []
        for (index, element) in elements.enumerated() {
            let elementPath = path.element(index)
            guard let name = element.stringValue, !name.isEmpty else {
                throw invalid(elementPath, "must be a member name: a non-empty string")
            }
            guard !(["aps"] + contractMembers + typedMembers).contains(where: { $0.isExactly(name) }) else {
                throw invalid(elementPath, "names \"\(name)\", which is not a custom member and is never searched")
            }
            guard names.insert(ExactText(name)).inserted else {
                throw invalid(elementPath, "repeats \"\(name)\"")
            }
        }
        return names
    }

    private static func refuseUnknown(_ object: JSONObject, known: [String], at path: JSONPath) throws {
        if let name = object.firstMember(notIn: known) {
            throw invalid(
                path.member(name), "is not a member of the contract (known: \(known.joined(separator: ", ")))")
        }
    }

    /// A contract-file error: `path what is wrong`.
    static func invalid(_ path: JSONPath, _ detail: String) -> PushSealError {
        PushSealError(.invalidPayload, "\(path) \(detail)")
    }

    /// Checks `content` (a payload, before sealing or after opening) and returns its route.
    /// Checked in this order: `schema_version`, `type`, `id`, `event_id`.
    public func route(for content: JSONObject) throws(RouteError) -> Route {
        guard let version = content["schema_version"]?.numberValue?.intValue, schemaVersions.contains(version) else {
            let supported = schemaVersions.sorted().map(String.init).joined(separator: ", ")
            throw RouteError(
                .unsupportedSchema, JSONPath.root.member("schema_version").description,
                content["schema_version"] == nil
                    ? "is missing (supported: \(supported))" : "is not one of the supported versions (\(supported))")
        }
        guard let type = content["type"]?.stringValue, let definition = routes[ExactText(type)] else {
            throw RouteError(
                .unknownType, JSONPath.root.member("type").description,
                content["type"] == nil ? "is missing" : "is not a route of the contract (\(knownTypes))")
        }
        var id: String?
        switch (definition.idKind, content["id"]) {
        case (nil, nil): id = nil
        case (nil, .some): throw RouteError(.badID, Self.idPath, "is not taken by the route \"\(type)\"")
        case (let kind?, nil):
            throw RouteError(.badID, Self.idPath, "is missing: the route \"\(type)\" takes \(kind.description)")
        case (let kind?, let value?):
            guard let canonical = kind.canonicalID(value) else {
                throw RouteError(.badID, Self.idPath, "must be \(kind.description) for the route \"\(type)\"")
            }
            id = canonical
        }
        guard let eventID = content["event_id"]?.stringValue, !eventID.isEmpty,
            eventID.utf8.count <= Self.maximumEventIDLength,
            eventID.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
        else {
            throw RouteError(
                .missingEventID, JSONPath.root.member("event_id").description,
                "must be a string of 1 to \(Self.maximumEventIDLength) printable ASCII characters (U+0020 to U+007E)")
        }
        return Route(type: type, id: id, schemaVersion: version, eventID: eventID)
    }

    private static let idPath = JSONPath.root.member("id").description

    private var knownTypes: String {
        routes.keys.map(\.text).sorted().joined(separator: ", ")
    }
}

extension PayloadContract.RouteDefinition {
    /// `template` with `{id}` and `{type}` filled in for `route`.
    public func fill(_ template: String, for route: Route) -> String {
        RouteTemplate.fill(template, id: route.id ?? "", type: route.type)
    }
}
