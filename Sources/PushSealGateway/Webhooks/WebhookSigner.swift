internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import PushSealPrimitives

/// Signs webhook messages as the Standard Webhooks specification does: the
/// `webhook-signature` header is `v1,` and the base64 of HMAC-SHA256 over
/// `{webhook-id}.{webhook-timestamp}.{body}`, once per secret, space-separated, so that a
/// receiver that knows either secret of a rotation accepts the message. The secrets are kept in
/// wiped storage, and never shown.
struct WebhookSigner: Sendable, CustomStringConvertible {
    /// The prefix of a secret as Standard Webhooks writes it.
    static let secretPrefix = "whsec_"

    private let secrets: [SecretBytes]

    /// A signer with the secrets of `files` (one or two, each 0600, holding `whsec_` and the
    /// base64 of 24 to 64 random bytes, a final newline allowed).
    /// - Throws: ``GatewayError`` naming the file and what is wrong; never its contents.
    init(secretFiles files: [String]) throws(GatewayError) {
        var secrets: [SecretBytes] = []
        for file in files {
            var bytes = try ConfiguredFile.secret(file)
            defer { wipe(&bytes) }
            guard let secret = Self.secret(bytes) else {
                throw GatewayError(
                    "\(file) must hold one webhook secret: whsec_ and the base64 of 24 to 64 random bytes "
                        + "(pushseal-gateway webhook secret makes one)")
            }
            secrets.append(secret)
        }
        self.secrets = secrets
    }

    /// The secret in a file's `bytes`, or nil when they hold none.
    private static func secret(_ bytes: [UInt8]) -> SecretBytes? {
        var text = bytes[...]
        while let last = text.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { text = text.dropLast() }
        guard text.starts(with: secretPrefix.utf8) else { return nil }
        // Standard base64 becomes base64url without padding for the constant-time decoder: the
        // two alphabets differ only in two characters, swapped one for one.
        var encoded = [UInt8](text.dropFirst(secretPrefix.utf8.count))
        defer { wipe(&encoded) }
        while encoded.last == UInt8(ascii: "=") { encoded.removeLast() }
        for index in encoded.indices {
            if encoded[index] == UInt8(ascii: "+") { encoded[index] = UInt8(ascii: "-") }
            if encoded[index] == UInt8(ascii: "/") { encoded[index] = UInt8(ascii: "_") }
        }
        var textForm = String(decoding: encoded, as: UTF8.self)
        defer { textForm.removeAll() }
        guard let secret = Base64URL.decodeSecret(textForm), (24...64).contains(secret.count) else { return nil }
        return secret
    }

    /// The `webhook-signature` value for a message `id` sent at `timestamp` (UNIX seconds) with
    /// `body`.
    func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        let signed = Array("\(id).\(timestamp).".utf8) + body
        return secrets.compactMap { secret in
            (try? HMAC.authenticationCode(key: secret, message: signed)).map { "v1," + Self.base64($0) }
        }.joined(separator: " ")
    }

    /// Standard base64, padded, of public `bytes` (a signature).
    static func base64(_ bytes: [UInt8]) -> String { standardAlphabet(Base64URL.encode(bytes)) }

    /// A new secret of 32 random bytes, as `pushseal-gateway webhook secret` writes it (the one
    /// place a secret is shown: to the operator who asked for it).
    static func newSecret() -> String {
        secretPrefix + standardAlphabet(Base64URL.encodeSecret(SecretBytes(randomCount: 32)))
    }

    /// Unpadded base64url `text` in the standard alphabet, padded.
    private static func standardAlphabet(_ text: String) -> String {
        var characters = Array(text.utf8)
        for index in characters.indices {
            if characters[index] == UInt8(ascii: "-") { characters[index] = UInt8(ascii: "+") }
            if characters[index] == UInt8(ascii: "_") { characters[index] = UInt8(ascii: "/") }
        }
        characters += repeatElement(UInt8(ascii: "="), count: (4 - characters.count % 4) % 4)
        return String(decoding: characters, as: UTF8.self)
    }

    var description: String { "WebhookSigner(\(secrets.count) secrets, redacted)" }
}
