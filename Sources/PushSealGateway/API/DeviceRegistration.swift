internal import PushSealCore
internal import PushSealDelivery
internal import PushSealEncryptor

/// The body of `PUT /v1/devices/{id}` (gateway-v1.md, "Devices"):
/// `{"user", "token", "topic", "environment", "key"}`, every member required and checked; the
/// key must be a device's public X25519 or P-256 JWK.
enum DeviceRegistration {
    /// The device `id` that `body` registers at `time`.
    /// - Parameters:
    ///   - topics: the bundle ids the configuration allows.
    ///   - sealer: to refuse a key whose suite has no sender key.
    /// - Throws: ``APIError`` naming the member at fault.
    static func device(
        id: String, body: JSONObject, topics: [String], sealer: PushSealer, at time: Int64
    ) throws(APIError) -> Device {
        let root = JSONPath.root
        try RequestReader.refuseUnknown(body, ["user", "token", "topic", "environment", "key"], at: root)
        let user = try RequestReader.text(body, "user", at: root, maximum: 128)
        guard RequestReader.isIdentifier(user) else {
            throw .invalid(root.member("user"), "must be 1 to 128 printable ASCII characters, without '/'")
        }
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
        return Device(
            id: id, user: user, token: token, topic: topic, environment: environment, publicKeyJWK: jwk,
            registeredAt: time, unregisteredAt: nil)
    }

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

    /// A device as the API shows it: never the key's bytes beyond the public JWK, the token whole
    /// (the backend gave it).
    static func json(_ device: Device) -> JSONValue {
        var object = JSONObject([
            ("id", .string(device.id)), ("user", .string(device.user)), ("token", .string(device.token)),
            ("topic", .string(device.topic)), ("environment", .string(device.environment.rawValue)),
            ("state", .string(device.unregisteredAt == nil ? "active" : "unregistered")),
            ("registered_at", .number(JSONNumber(Int(device.registeredAt)))),
        ])
        if let jwk = try? JSONParser.parse(device.publicKeyJWK) { object["key"] = jwk }
        if let unregistered = device.unregisteredAt {
            object["unregistered_at"] = .number(JSONNumber(Int(unregistered)))
        }
        return .object(object)
    }
}
