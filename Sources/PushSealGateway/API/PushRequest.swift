internal import PushSealCore
internal import PushSealEncryptor

/// The body of `POST /v1/pushes`, checked member by member (gateway-v1.md, "Pushes"):
/// `{"to": {"user"|"users"|"devices": …}, "payload": {…}, "options": {…}, "web": {…},
/// "idempotency_key": "…"}`.
struct PushRequest: Sendable {
    /// Whom the push is for.
    enum Audience: Sendable {
        /// Every active device of these users.
        case users([String])
        /// These devices (unknown or unregistered ones are skipped).
        case devices([String])
    }

    /// Whom the push is for.
    let audience: Audience
    /// The APNs payload, as `pushseal encrypt` takes it.
    let payload: JSONObject
    /// How to seal it.
    let encryption: EncryptionOptions
    /// `apns-priority`, `apns-expiration`, `apns-collapse-id` (the topic is each device's).
    let priority: Int?
    let expiration: Int?
    let collapseID: String?
    /// A media descriptor to put into the payload's `media` member.
    let media: MediaDescriptor?
    /// What a browser shows beyond the payload: the click's target, an icon, the text's language.
    let web: WebPushOptions
    /// The caller's key that makes a repeated request return the first push.
    let idempotencyKey: String?
    /// `options.fetch`: whether an APNs alert push too large for its payload is kept for the
    /// device to fetch (gateway-v1.md, "Fetched content"); nil leaves it to the app's `fetch`.
    let fetch: Bool?
    /// `options.receipt`: false leaves the push's deliveries without receipts in an app that has
    /// `receipts` (gateway-v1.md, "Receipts"); nil leaves it to the app.
    let receipt: Bool?

    /// The most users or devices one push may name.
    static let maximumAudience = 1_000

    /// Reads and checks `body`.
    /// - Throws: ``APIError`` naming the JSON path.
    init(_ body: JSONObject) throws(APIError) {
        let root = JSONPath.root
        try RequestReader.refuseUnknown(body, ["to", "payload", "options", "web", "idempotency_key"], at: root)
        audience = try Self.audience(body["to"], at: root.member("to"))
        guard let payload = body["payload"]?.objectValue else {
            throw .invalid(root.member("payload"), "must be an APNs payload object")
        }
        self.payload = payload
        idempotencyKey = try RequestReader.optionalASCII(body, "idempotency_key", at: root, maximum: 128)
        web = try WebPushOptions(body["web"], at: root.member("web"))
        let optionsPath = root.member("options")
        let options: JSONObject
        switch body["options"] {
        case nil: options = JSONObject()
        case .object(let object)?: options = object
        default: throw .invalid(optionsPath, "must be an object")
        }
        try RequestReader.refuseUnknown(
            options,
            [
                "push_type", "priority", "expiration", "collapse_id", "placeholder", "clear", "media", "truncate",
                "fetch", "receipt",
            ],
            at: optionsPath)
        var encryption = EncryptionOptions()
        if let name = try RequestReader.optionalText(options, "push_type", at: optionsPath, maximum: 16) {
            guard let pushType = PushType(name: name) else {
                throw .invalid(optionsPath.member("push_type"), "must be \"alert\", \"background\" or \"voip\"")
            }
            encryption.pushType = pushType
        }
        if let placeholder = options["placeholder"] {
            encryption.placeholder = try Self.placeholder(placeholder, at: optionsPath.member("placeholder"))
        }
        if let clear = options["clear"] {
            guard case .array(let names) = clear, names.allSatisfy({ $0.stringValue != nil }) else {
                throw .invalid(optionsPath.member("clear"), "must be an array of member names")
            }
            encryption.clearMembers = names.compactMap(\.stringValue)
        }
        if try RequestReader.optionalBool(options, "truncate", at: optionsPath) == true {
            encryption.overflow = .truncateBody
        }
        fetch = try RequestReader.optionalBool(options, "fetch", at: optionsPath)
        receipt = try RequestReader.optionalBool(options, "receipt", at: optionsPath)
        do {
            try encryption.validate()
        } catch {
            throw .invalid(optionsPath, "\(error)")
        }
        self.encryption = encryption
        priority = try RequestReader.optionalInteger(options, "priority", at: optionsPath)
        if let priority, priority != 5 && priority != 10 {
            throw .invalid(optionsPath.member("priority"), "must be 5 or 10")
        }
        expiration = try RequestReader.optionalInteger(options, "expiration", at: optionsPath)
        if let expiration, !(0...APNsRequestOptions.maximumExpiration).contains(expiration) {
            throw .invalid(
                optionsPath.member("expiration"),
                "must be a UNIX time from 0 to \(APNsRequestOptions.maximumExpiration)")
        }
        collapseID = try RequestReader.optionalASCII(options, "collapse_id", at: optionsPath, maximum: 64)
        if let media = options["media"] {
            guard let descriptor = media.objectValue else {
                throw .invalid(optionsPath.member("media"), "must be a media-v1 descriptor object")
            }
            do {
                self.media = try MediaDescriptor(json: descriptor)
            } catch {
                throw .invalid(optionsPath.member("media"), "is not a media-v1 descriptor: \(error)")
            }
        } else {
            media = nil
        }
    }

    private static func audience(_ value: JSONValue?, at path: JSONPath) throws(APIError) -> Audience {
        guard let to = value?.objectValue, to.count == 1, let (name, member) = to.members.first else {
            throw .invalid(path, "must be an object with one of \"user\", \"users\" or \"devices\"")
        }
        func ids(_ value: JSONValue, at path: JSONPath) throws(APIError) -> [String] {
            guard case .array(let elements) = value, (1...maximumAudience).contains(elements.count) else {
                throw .invalid(path, "must be an array of 1 to \(maximumAudience) ids")
            }
            // A repeated id counts once: one delivery per device per push, however the audience names it.
            var ids: [String] = []
            var seen: Set<String> = []
            for (index, element) in elements.enumerated() {
                guard let id = element.stringValue, RequestReader.isIdentifier(id) else {
                    throw .invalid(path.element(index), "must be an id: 1 to 128 printable ASCII characters")
                }
                if seen.insert(id).inserted { ids.append(id) }
            }
            return ids
        }
        switch ExactText(name) {
        case "user":
            guard let user = member.stringValue, RequestReader.isIdentifier(user) else {
                throw .invalid(path.member("user"), "must be an id: 1 to 128 printable ASCII characters")
            }
            return .users([user])
        case "users": return .users(try ids(member, at: path.member("users")))
        case "devices": return .devices(try ids(member, at: path.member("devices")))
        default: throw .invalid(path.member(name), "is not one of \"user\", \"users\" or \"devices\"")
        }
    }

    private static func placeholder(_ value: JSONValue, at path: JSONPath) throws(APIError) -> Placeholder {
        guard let object = value.objectValue else { throw .invalid(path, "must be an object") }
        try RequestReader.refuseUnknown(object, ["title", "body", "loc_key"], at: path)
        let key = try RequestReader.optionalText(object, "loc_key", at: path, maximum: 256)
        let title = try RequestReader.optionalText(object, "title", at: path, maximum: 256)
        let body = try RequestReader.optionalText(object, "body", at: path, maximum: 1024)
        if let key {
            guard title == nil && body == nil else {
                throw .invalid(path.member("loc_key"), "cannot be given with a title or a body")
            }
            return .localized(key: key)
        }
        return title == nil && body == nil ? .standard : .text(title: title, body: body)
    }
}
