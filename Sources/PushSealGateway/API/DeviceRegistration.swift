internal import PushSealCore
internal import PushSealDelivery
internal import PushSealEncryptor
internal import PushSealGatewayModel

/// The body of `PUT /v1/devices/{id}` (gateway-v1.md, "Devices"): an APNs device,
/// `{"user", "token", "topic", "environment", "key"}`, whose key must be a device's public X25519
/// or P-256 JWK; or a Web Push subscription, `{"user", "subscription"}`, as a browser's
/// `PushSubscription.toJSON()` gives it. Every member is required and checked.
enum DeviceRegistration {
    /// The device `id` of `app` that `body` registers at `time`.
    /// - Parameters:
    ///   - topics: the bundle ids the configuration allows.
    ///   - sealer: to refuse a key whose suite has no sender key.
    ///   - webPush: the Web Push client, whose rules an endpoint must meet; nil when the gateway has
    ///     no Web Push configuration (a subscription is then 422).
    /// - Throws: ``APIError`` naming the member at fault.
    static func device(
        id: String, in app: AppID, body: JSONObject, topics: [String], sealer: PushSealer, webPush: WebPushClient?,
        at time: Int64
    ) throws(APIError) -> Device {
        let root = JSONPath.root
        let isSubscription = body["subscription"] != nil
        try RequestReader.refuseUnknown(
            body, isSubscription ? ["user", "subscription"] : ["user", "token", "topic", "environment", "key"],
            at: root)
        let user = try RequestReader.text(body, "user", at: root, maximum: 128)
        guard RequestReader.isIdentifier(user) else {
            throw .invalid(root.member("user"), "must be 1 to 128 printable ASCII characters, without '/'")
        }
        let channel =
            isSubscription
            ? try subscription(body, webPush: webPush) : try apnsChannel(body, topics: topics, sealer: sealer)
        return Device(app: app, id: id, user: user, channel: channel, registeredAt: time, unregisteredAt: nil)
    }

    /// The APNs members of a registration.
    private static func apnsChannel(_ body: JSONObject, topics: [String], sealer: PushSealer) throws(APIError)
        -> DeviceChannel
    {
        let root = JSONPath.root
        let token = try RequestReader.text(body, "token", at: root, maximum: 200).lowercased()
        guard DeliveryJob.isValidDeviceToken(token) else {
            throw .invalid(root.member("token"), "must be an APNs device token: 16 to 200 hexadecimal digits")
        }
        let topic = try RequestReader.text(body, "topic", at: root, maximum: 255)
        guard topics.contains(where: { $0.isExactly(topic) }) else {
            throw .invalid(
                root.member("topic"), "is not one of the gateway's topics (\(topics.joined(separator: ", ")))")
        }
        let environmentName = try RequestReader.text(body, "environment", at: root, maximum: 16)
        guard let environment = APNsEnvironment(rawValue: environmentName) else {
            throw .invalid(root.member("environment"), "must be \"production\" or \"sandbox\"")
        }
        let jwk = try publicKey(body["key"], at: root.member("key"), sealer: sealer)
        return .apns(token: token, topic: topic, environment: environment, publicKeyJWK: jwk)
    }

    /// The subscription of a registration: `{"endpoint", "keys": {"p256dh", "auth"},
    /// "expirationTime"}` (the last optional, a number or null, and not kept), checked as
    /// webpush-v1.md's "Subscriptions" says, the endpoint also against the Web Push client's rules.
    private static func subscription(_ body: JSONObject, webPush: WebPushClient?) throws(APIError) -> DeviceChannel {
        let path = JSONPath.root.member("subscription")
        guard let object = body["subscription"]?.objectValue else {
            throw .invalid(path, "must be a PushSubscription object: {\"endpoint\", \"keys\": {\"p256dh\", \"auth\"}}")
        }
        try RequestReader.refuseUnknown(object, ["endpoint", "keys", "expirationTime"], at: path)
        switch object["expirationTime"] {
        case nil, .null?, .number?: break
        default: throw .invalid(path.member("expirationTime"), "must be a number or null")
        }
        let endpoint = try RequestReader.text(object, "endpoint", at: path, maximum: maximumEndpointLength)
        guard let keys = object["keys"]?.objectValue else {
            throw .invalid(path.member("keys"), "must be an object with \"p256dh\" and \"auth\"")
        }
        try RequestReader.refuseUnknown(keys, ["p256dh", "auth"], at: path.member("keys"))
        let keysPath = path.member("keys")
        let p256dh = try RequestReader.text(keys, "p256dh", at: keysPath, maximum: 100)
        let auth = try RequestReader.text(keys, "auth", at: keysPath, maximum: 32)
        let parsed: WebPushSubscription
        do {
            parsed = try WebPushSubscription(endpoint: endpoint, p256dh: p256dh, auth: auth)
        } catch {
            let at = (error.member ?? "endpoint").split(separator: ".").reduce(path) { $0.member(String($1)) }
            throw .invalid(at, error.detail)
        }
        guard let webPush else {
            throw .unprocessable(path, "the gateway has no Web Push configuration (\"webpush\" in its configuration)")
        }
        if let refusal = webPush.refusal(forEndpoint: endpoint) {
            throw .unprocessable(path.member("endpoint"), refusal)
        }
        // The endpoint as given, the keys in canonical unpadded base64url.
        let canonicalAuth = parsed.json["keys"]?.objectValue?["auth"]?.stringValue ?? auth
        return .webPush(endpoint: endpoint, p256dh: parsed.p256dh, auth: canonicalAuth)
    }

    /// The longest endpoint taken: FCM's and Mozilla's are about 200 characters, and the media URL
    /// rule allows 4,096.
    static let maximumEndpointLength = 2_048

    /// The members a device's public JWK may have: what envelope-v1.md's "Keys" names for an
    /// X25519 or P-256 public key.
    private static let publicKeyMembers = ["kty", "crv", "x", "y", "kid"]

    /// The device's public JWK as compact JSON, rebuilt from the key itself: its canonical members
    /// only (`kty`, `crv`, `x`, `y` for P-256, and `kid`, the default one when none was given).
    /// `d` (a private key) and `oct` (a shared key) are refused, since the gateway would then hold
    /// a secret of the device, and so is any other member.
    private static func publicKey(_ value: JSONValue?, at path: JSONPath, sealer: PushSealer) throws(APIError)
        -> String
    {
        guard let jwk = value?.objectValue else { throw .invalid(path, "must be the device's public JWK object") }
        if jwk["d"] != nil {
            throw .invalid(path.member("d"), "is a private key: register the device's public key only")
        }
        if jwk["k"] != nil || jwk["kty"]?.stringValue == "oct" {
            throw .invalid(
                path,
                "is a shared (oct) key: the gateway would hold the device's secret; register an X25519 or P-256 key")
        }
        try RequestReader.refuseUnknown(jwk, publicKeyMembers, at: path)
        let key: PublicKey
        do {
            key = try PublicKey(jwk: jwk)
        } catch {
            throw .invalid(
                path, "is not a public X25519 or P-256 JWK: \((error as? PushSealError)?.detail ?? "\(error)")")
        }
        guard sealer.supports(key.suite) else {
            throw .unprocessable(path, "is a \(key.suite.name) key, and the gateway has no sender key of that suite")
        }
        if key.suite == .x25519, jwk["y"] != nil {
            throw .invalid(path.member("y"), "is not a member of an X25519 key")
        }
        return JSONWriter.string(.object(key.jwk))
    }

    /// A device as the API shows it: never the key's bytes beyond the public JWK, the token or the
    /// endpoint whole (the backend gave it), and never a subscription's authentication secret.
    static func json(_ device: Device) -> JSONValue {
        var object = JSONObject([("id", .string(device.id)), ("user", .string(device.user))])
        switch device.channel {
        case .apns(let token, let topic, let environment, let jwk):
            object["token"] = .string(token)
            object["topic"] = .string(topic)
            object["environment"] = .string(environment.rawValue)
            if let jwk = try? JSONParser.parse(jwk) { object["key"] = jwk }
        case .webPush(let endpoint, let p256dh, _):
            object["subscription"] = .object(
                JSONObject([
                    ("endpoint", .string(endpoint)), ("keys", .object(JSONObject([("p256dh", .string(p256dh))]))),
                ]))
        }
        object["state"] = .string(device.unregisteredAt == nil ? "active" : "unregistered")
        object["registered_at"] = .number(JSONNumber(Int(device.registeredAt)))
        if let unregistered = device.unregisteredAt {
            object["unregistered_at"] = .number(JSONNumber(Int(unregistered)))
        }
        return .object(object)
    }
}
