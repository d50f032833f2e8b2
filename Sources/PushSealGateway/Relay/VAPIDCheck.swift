internal import PushSealCore
internal import PushSealPrimitives
internal import PushSealURL

/// Checks a Web Push request's VAPID authorization (RFC 8292) for an endpoint whose registration
/// pinned the sender's application server key (§4): `Authorization: vapid t=<JWT>, k=<key>`,
/// where `k` is the pinned key (compared in constant time), the token is ES256 over its header
/// and claims, signed by `k`, with `aud` the gateway's origin and an `exp` in the future and at
/// most 24 hours ahead.
enum VAPIDCheck {
    /// The longest a token may be valid for (RFC 8292 §2).
    static let maximumLifetime: Int64 = 86_400

    /// Checks `authorization` against `pinned` (the key as base64url) for the origin `audience`,
    /// at `now` (UNIX seconds).
    /// - Throws: ``APIError``: 401 for a missing or invalid token, 403 for a valid token of
    ///   another key.
    static func check(_ authorization: String?, pinned: String, audience: String, now: Int64) throws(APIError) {
        guard let authorization, authorization.lowercased().hasPrefix("vapid ") else {
            throw .webPush(
                401, "this endpoint takes messages signed with VAPID (RFC 8292): Authorization: vapid t=…, k=…")
        }
        guard let parameters = Self.parameters(authorization.utf8.dropFirst(6)) else {
            throw .webPush(401, "the vapid authorization's parameters are not name=value pairs (RFC 7235 §2.1)")
        }
        guard let token = parameters["t"], let key = parameters["k"], let keyBytes = Base64URL.decode(key),
            let pinnedBytes = Base64URL.decode(pinned)
        else { throw .webPush(401, "the vapid authorization needs t= (the token) and k= (the key), in base64url") }
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
        else { throw .webPush(401, "the VAPID token's signature does not verify under k") }
        guard claims["aud"]?.stringValue == audience else {
            throw .webPush(401, "the VAPID token's aud is not \(audience)")
        }
        guard let expiry = claims["exp"]?.numberValue?.intValue.map(Int64.init), expiry > now,
            expiry <= now + maximumLifetime
        else { throw .webPush(401, "the VAPID token's exp must be in the next 24 hours") }
    }

    /// The auth-params of RFC 7235 §2.1 in `text`: `name = value` pairs separated by commas, with
    /// optional white space around each, the names compared without case (lowered here), each
    /// value a token or a quoted string (unescaped here); nil when `text` is not such a list or
    /// names a parameter twice.
    static func parameters(_ text: Substring.UTF8View) -> [String: String]? {
        let bytes = Array(text)
        var parameters: [String: String] = [:]
        var index = 0
        func skipSpaces() { while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 } }
        func run(while accepted: (UInt8) -> Bool) -> [UInt8] {
            let start = index
            while index < bytes.count, accepted(bytes[index]) { index += 1 }
            return Array(bytes[start..<index])
        }
        while true {
            skipSpaces()
            while index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipSpaces()
            }
            guard index < bytes.count else { return parameters }
            let name = run(while: HTTPToken.isCharacter).map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }
            skipSpaces()
            guard !name.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
            index += 1
            skipSpaces()
            var value: [UInt8]
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                value = []
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\") { index += 1 }
                    guard index < bytes.count else { return nil }
                    value.append(bytes[index])
                    index += 1
                }
                guard index < bytes.count else { return nil }
                index += 1
            } else {
                value = run(while: { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") })
            }
            let key = String(decoding: name, as: UTF8.self)
            guard parameters[key] == nil else { return nil }
            parameters[key] = String(decoding: value, as: UTF8.self)
            skipSpaces()
            guard index == bytes.count || bytes[index] == UInt8(ascii: ",") else { return nil }
        }
    }
}
