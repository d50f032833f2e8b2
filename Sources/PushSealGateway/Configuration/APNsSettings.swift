internal import PushSealCore
internal import PushSealGatewayModel

/// An app's `apns` member: the `.p8` keys it signs with, the bundle ids its devices may register
/// for, and the hosts (gateway-v1.md, "Configuration").
///
/// One key, which signs for every topic:
///
/// ```json
/// "apns": {"auth_key_file": "AuthKey_ABC123DEFG.p8", "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ",
///          "topics": ["com.example.shop"]}
/// ```
///
/// or several, team-scoped (no `topics`: every topic of the app) or topic-specific:
///
/// ```json
/// "apns": {"keys": [{"auth_key_file": "AuthKey_TEAM.p8", "key_id": "…", "team_id": "…"},
///                   {"auth_key_file": "AuthKey_SHOP.p8", "key_id": "…", "team_id": "…",
///                    "topics": ["com.example.shop"]}],
///          "topics": ["com.example.shop", "com.example.shop.watch"]}
/// ```
public struct APNsSettings: Sendable {
    /// The keys, in configuration order.
    public let keys: [APNsKeySettings]
    /// The bundle ids devices may register for.
    public let topics: [String]
    /// The APNs host of each environment.
    public let hosts: [String: String]
    /// Certificates to trust for APNs instead of the system's (a mock, in tests).
    public let caFile: String?

    /// The members `apns` may have.
    private static let members = ["auth_key_file", "key_id", "team_id", "keys", "topics", "hosts", "ca_file"]

    /// Reads the `apns` member `object` (at `path`); relative files go through `resolve`.
    /// - Throws: ``GatewayError`` naming the member at fault: a key twice, a key's topic the app
    ///   does not have, or a topic no key may sign for.
    init(_ object: JSONObject, at path: JSONPath, resolve: (String) -> String) throws(GatewayError) {
        try GatewayConfiguration.refuseUnknown(object, Self.members, at: path)
        topics = try GatewayConfiguration.strings(object, "topics", of: "bundle ids", at: path)
        let single = ["auth_key_file", "key_id", "team_id"].filter { object[$0] != nil }
        if let keyList = object["keys"] {
            if let member = single.first {
                throw GatewayConfiguration.invalid(
                    path.member(member), "is a member of each of keys when apns has keys, not of apns")
            }
            guard case .array(let list) = keyList, !list.isEmpty else {
                throw GatewayConfiguration.invalid(path.member("keys"), "must be a non-empty array of keys")
            }
            var keys: [APNsKeySettings] = []
            for (index, value) in list.enumerated() {
                let keyPath = path.member("keys").element(index)
                guard let keyObject = value.objectValue else {
                    throw GatewayConfiguration.invalid(keyPath, "must be an object")
                }
                let key = try APNsKeySettings(keyObject, at: keyPath, appTopics: topics, resolve: resolve)
                if keys.contains(where: { $0.keyID == key.keyID && $0.teamID == key.teamID }) {
                    throw GatewayConfiguration.invalid(keyPath.member("key_id"), "names a key listed before it")
                }
                keys.append(key)
            }
            self.keys = keys
        } else {
            keys = [try APNsKeySettings(object, at: path, appTopics: nil, resolve: resolve)]
        }
        var hosts = ["production": "https://api.push.apple.com", "sandbox": "https://api.sandbox.push.apple.com"]
        if let given = object["hosts"] {
            guard let hostObject = given.objectValue else {
                throw GatewayConfiguration.invalid(path.member("hosts"), "must be an object")
            }
            try GatewayConfiguration.refuseUnknown(hostObject, ["production", "sandbox"], at: path.member("hosts"))
            for (name, value) in hostObject {
                guard let url = value.stringValue, url.hasPrefix("https://") else {
                    throw GatewayConfiguration.invalid(path.member("hosts").member(name), "must be an https:// URL")
                }
                hosts[name] = url
            }
        }
        self.hosts = hosts
        caFile = try GatewayConfiguration.file(object, "ca_file", at: path, resolve: resolve)
        for topic in topics where key(for: topic) == nil {
            throw GatewayConfiguration.invalid(
                path.member("keys"),
                "has no key that signs for the topic \(topic): add it to a key's topics, or add a team key "
                    + "(one without topics)")
        }
    }

    /// The key that signs pushes to `topic`: the first that names it among its topics, else the
    /// first team key; nil when none may (the configuration refuses that for its own topics).
    public func key(for topic: String) -> APNsKeySettings? {
        keys.first { $0.topics?.contains(topic) == true } ?? keys.first { $0.topics == nil }
    }
}

/// One `.p8` key of an app's `apns`: Apple issues team-scoped keys, which sign for every topic of
/// the team, and topic-specific ones, which sign only for theirs.
public struct APNsKeySettings: Sendable, Hashable {
    /// The `.p8` file, 0600.
    public let authKeyFile: String
    /// The key's id, as Apple shows it (10 characters).
    public let keyID: String
    /// The Apple team id.
    public let teamID: String
    /// The topics the key may sign for; nil for a team key, which signs for every topic of the app.
    public let topics: [String]?

    /// Reads a key's members from `object` (at `path`); `appTopics` are the topics a key's
    /// `topics` may name (nil: the key is the `apns` object itself, and has none).
    init(_ object: JSONObject, at path: JSONPath, appTopics: [String]?, resolve: (String) -> String)
        throws(GatewayError)
    {
        if appTopics != nil {
            try GatewayConfiguration.refuseUnknown(object, ["auth_key_file", "key_id", "team_id", "topics"], at: path)
        }
        authKeyFile = resolve(try GatewayConfiguration.string(object, "auth_key_file", at: path))
        keyID = try GatewayConfiguration.string(object, "key_id", at: path)
        teamID = try GatewayConfiguration.string(object, "team_id", at: path)
        guard let appTopics, object["topics"] != nil else {
            topics = nil
            return
        }
        let named = try GatewayConfiguration.strings(object, "topics", of: "bundle ids", at: path)
        for (index, topic) in named.enumerated() where !appTopics.contains(topic) {
            throw GatewayConfiguration.invalid(
                path.member("topics").element(index), "names \(topic), which is not among the app's apns topics")
        }
        topics = named
    }
}
