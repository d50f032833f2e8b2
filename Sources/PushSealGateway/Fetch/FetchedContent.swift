internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import PushSealPrimitives

/// Content kept for a device to fetch because it does not fit an APNs payload (gateway-v1.md,
/// "Fetched content"): what the gateway keeps is sealed to the device already, so it never opens
/// it; the push carries a reference to it, sealed to the device too. `GET /v1/fetch/{id}` serves
/// it to the reference's capability alone, with 404 alike for every refusal.
enum FetchedContent {
    /// How long content is kept at least, in milliseconds, whatever the push's TTL: ten minutes,
    /// for a phone that gets the push a little late.
    static let minimumLifetime: Int64 = 600_000
    /// An object's id: 16 random bytes (22 characters of base64url).
    static let idByteCount = 16

    /// What the log shows of an object's id: its first 8 characters, enough to find the object
    /// in the database, not enough to fetch it (or to spend its five wrong capabilities and so
    /// delete it before the phone fetches it), as for a relay endpoint's id.
    static func loggedID(_ id: String) -> String { String(id.prefix(8)) }

    /// Keeps `body` from `source` (`FetchObject.appSource`, or a relay endpoint's id hash) for
    /// `device` to fetch at `<publicURL>/v1/fetch/<id>`, for `ttl` seconds, at least
    /// ``minimumLifetime`` and at most `retentionHours`; the device's objects of that source
    /// beyond `FetchObject.perDeviceLimit` go, with a warning in `log`. Call it before the push that
    /// refers to it is accepted: a crash between the two leaves an object that expires unfetched,
    /// never a push that refers to nothing.
    /// - Returns: the object's id, and the reference to seal into the push.
    static func keep(
        _ body: [UInt8], format: FetchReference.Format, from source: String, for device: Device, publicURL: String,
        ttl: Int, retentionHours: Int, store: any GatewayStore, log: EventLog, at now: Int64
    ) throws -> (id: String, reference: FetchReference) {
        let lifetime = min(max(Int64(ttl) * 1_000, minimumLifetime), Int64(retentionHours) * 3_600_000)
        let id = Base64URL.encode(SecureRandom.bytes(idByteCount))
        let expiresAt = now + lifetime
        let (reference, capabilityHash) = try FetchReference.make(
            url: "\(publicURL)/v1/fetch/\(id)", expires: expiresAt / 1_000, content: body, format: format)
        let evicted = try store.addFetchObject(
            FetchObject(
                id: id, app: device.app, deviceID: device.id, source: source, capabilityHash: capabilityHash,
                body: body, createdAt: now, expiresAt: expiresAt))
        if evicted > 0 {
            log.write(
                "fetch-objects-evicted",
                [
                    ("app", .string(device.app.name)), ("device", .string(device.id)),
                    ("deleted", .number(JSONNumber(evicted))),
                ])
        }
        return (id, reference)
    }

    /// `GET /v1/fetch/{id}` with `Authorization: Bearer <capability>`: 200 with the sealed bytes
    /// (`application/octet-stream`, never cached), or 404 alike for an id that is malformed,
    /// unknown, expired, fetched over a minute ago, or a capability that is missing or wrong
    /// (which counts against the object: the fifth ends it).
    static func serve(id: String, _ request: HTTPRequest, store: any GatewayStore, metrics: Metrics) throws
        -> HTTPResponse
    {
        guard id.utf8.count == 22, Base64URL.decode(id)?.count == idByteCount, let bearer = request.bearer,
            let capabilityHash = FetchReference.capabilityHash(bearer: bearer),
            let body = try store.fetchObjectBody(
                id: id, capabilityHash: capabilityHash, at: GatewayClock.milliseconds())
        else {
            metrics.fetchServed(404)
            throw APIError.notFound("content to fetch")
        }
        metrics.fetchServed(200)
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "application/octet-stream"), ("Cache-Control", "no-store")],
            body: body)
    }
}
