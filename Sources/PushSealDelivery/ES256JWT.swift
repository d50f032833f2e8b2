internal import PushSealCore
internal import PushSealPrimitives

/// A compact JWS signed with ES256 (RFC 7515, RFC 7518 §3.4): the provider tokens of APNs and the
/// VAPID tokens of Web Push. Header and claims are written by the JSON writer, never by
/// interpolation, so no id, origin or subject can add a member.
enum ES256JWT {
    /// `base64url(header) . base64url(claims) . base64url(r || s)`.
    static func sign(header: JSONObject, claims: JSONObject, with key: P256.SigningKey) throws -> String {
        var token: [UInt8] = []
        Base64URL.encode(JSONWriter.bytes(.object(header)), into: &token)
        token.append(UInt8(ascii: "."))
        Base64URL.encode(JSONWriter.bytes(.object(claims)), into: &token)
        let signature = try key.signature(for: token)
        token.append(UInt8(ascii: "."))
        Base64URL.encode(signature, into: &token)
        return String(decoding: token, as: UTF8.self)
    }
}
