internal import PushSealCore
internal import PushSealPrimitives
internal import PushSealURL

/// Checks a Web Push request's VAPID authorization for an endpoint whose registration pinned
/// the sender's application server key (RFC 8292 §4), in either of its two forms:
/// `Authorization: vapid t=<JWT>, k=<key>` (RFC 8292 §3), or draft-ietf-webpush-vapid-01's
/// `Authorization: WebPush <JWT>` with the key in `Crypto-Key: p256ecdsa=<key>`, as Mastodon
/// sends it. The key must be the pinned one (compared in constant time), the token ES256 over its
/// header and claims, signed by that key, with `aud` the gateway's origin and an `exp` in the
/// future and at most 24 hours ahead.
enum VAPIDCheck {
    /// The longest a token may be valid for (RFC 8292 §2).
    static let maximumLifetime: Int64 = 86_400

    /// Checks `authorization` (with `cryptoKey`, the `Crypto-Key` header, for the draft form)
    /// against `pinned` (the key as base64url) for the origin `audience`, at `now` (UNIX seconds).
    /// - Throws: ``APIError``: 401 for a missing or invalid token, 403 for a valid token of
    ///   another key.
    static func check(
        _ authorization: String?, cryptoKey: String? = nil, pinned: String, audience: String, now: Int64
    ) throws(APIError) {
        let (token, key) = try credentials(authorization, cryptoKey: cryptoKey)
        guard let keyBytes = Base64URL.decode(key), let pinnedBytes = Base64URL.decode(pinned) else {
            throw .webPush(401, "the VAPID key must be base64url")
        }
        guard keyBytes.count == pinnedBytes.count, ConstantTime.equals(keyBytes, pinnedBytes) else {
            throw .webPush(403, "the VAPID key is not the one this endpoint was registered for")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0].utf8),
            let claimsBytes = Base64URL.decode(parts[1].utf8), let signature = Base64URL.decode(parts[2].utf8),
            let header = (try? JSONParser.parse(headerBytes))?.objectValue,
            let claims = (try? JSONParser.parse(claimsBytes))?.objectValue
        else { throw .webPush(401, "the VAPID token is not a JWT") }
        guard header["alg"]?.stringValue == "ES256" else { throw .webPush(401, "the VAPID token is not ES256") }
        let signed = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard let verifier = try? P256.VerifyingKey(x963Representation: keyBytes),
            verifier.isValidSignature(signature, for: signed)
        else { throw .webPush(401, "the VAPID token's signature does not verify under its key") }
        guard claims["aud"]?.stringValue == audience else {
            throw .webPush(401, "the VAPID token's aud is not \(audience)")
        }
        guard let expiry = claims["exp"]?.numberValue?.intValue.map(Int64.init), expiry > now,
            expiry <= now + maximumLifetime
        else { throw .webPush(401, "the VAPID token's exp must be in the next 24 hours") }
    }

    /// The token and the key `authorization` presents, in RFC 8292's form or the draft's (whose
    /// key is `cryptoKey`'s `p256ecdsa`).
    private static func credentials(_ authorization: String?, cryptoKey: String?) throws(APIError)
        -> (token: String, key: String)
    {
        let usage =
            "this endpoint takes messages signed with VAPID (RFC 8292): Authorization: vapid t=…, k=… "
            + "(or WebPush <token> with Crypto-Key: p256ecdsa=…)"
        guard let authorization else { throw .webPush(401, usage) }
        let scheme = authorization.prefix { $0 != " " }.lowercased()
        let rest = authorization.utf8.dropFirst(scheme.utf8.count + 1)
        switch scheme {
        case "vapid":
            guard let parameters = HeaderParameters.authParameters(rest) else {
                throw .webPush(401, "the vapid authorization's parameters are not name=value pairs (RFC 7235 §2.1)")
            }
            guard let token = parameters["t"], let key = parameters["k"] else {
                throw .webPush(401, "the vapid authorization needs t= (the token) and k= (the key), in base64url")
            }
            return (token, key)
        case "webpush":
            let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
            let token = String(
                decoding: rest.drop(while: isSpace).reversed().drop(while: isSpace).reversed(), as: UTF8.self)
            let keys = cryptoKey.flatMap(HeaderParameters.entries)?.compactMap { $0["p256ecdsa"] } ?? []
            guard keys.count == 1, let key = keys.first else {
                throw .webPush(
                    401,
                    "Authorization: WebPush needs its key, once, in Crypto-Key: p256ecdsa=… (draft-ietf-webpush-vapid-01)"
                )
            }
            return (token, key)
        default:
            throw .webPush(401, usage)
        }
    }
}
