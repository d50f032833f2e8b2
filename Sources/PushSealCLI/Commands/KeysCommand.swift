internal import PushSealCore
internal import PushSealDecryptor
internal import PushSealPrimitives

/// `pushseal keys generate|public|init|import|rotate|retire|list|policy`.
enum KeysCommand {
    static func generate(suite: EnvelopeSuite, kid: String?, output: String?, console: Console) throws(UsageError)
        -> ExitStatus
    {
        let key: PrivateKey
        do {
            key = try PrivateKey.generate(suite: suite, kid: kid)
        } catch {
            throw UsageError("keys generate: \(KeyFiles.detail(error))")
        }
        var bytes = JSONWriter.bytes(.object(key.privateJWK))
        defer { SecureMemory.wipe(&bytes) }
        if let output {
            bytes.append(0x0A)
            try KeyFiles.writeNew(bytes, to: output)
            console.errors.writeLine(
                "pushseal: wrote \(suite.name) private key \"\(key.kid)\" to \(output) (mode 0600)")
        } else {
            console.output.writeLine(bytes)
        }
        return .success
    }

    /// `keys public`: the public JWK of a private key; with `applicationServerKey`, a P-256 key's
    /// public point as a web page's `PushManager.subscribe()` takes it (65 bytes in base64url).
    static func publicKey(input: String?, applicationServerKey: Bool, console: Console) throws(UsageError)
        -> ExitStatus
    {
        let key = try KeyFiles.privateKey(input)
        guard let publicKey = key.publicKey else {
            throw UsageError("keys public: \(input ?? "the key") is a shared (oct) key, which has no public half")
        }
        guard applicationServerKey else {
            console.output.writeLine(JSONWriter.bytes(.object(publicKey.jwk)))
            return .success
        }
        guard publicKey.suite == .p256 else {
            throw UsageError(
                "keys public --application-server-key: \(input ?? "the key") is a \(publicKey.suite.name) key; "
                    + "a VAPID key is P-256 (pushseal keys generate --suite p256)")
        }
        console.output.writeLine(Base64URL.encode(publicKey.rawRepresentation))
        return .success
    }

    static func initialize(store directory: String, console: Console) throws(UsageError) -> ExitStatus {
        let (_, created) = try storeCall { try FileKeyStore.create(directory: directory) }
        console.output.writeLine(
            JSONWriter.bytes(.object(JSONObject([("store", .string(directory)), ("created", .bool(created))]))))
        return .success
    }

    static func importKey(store directory: String, sender: Bool, input: String?, console: Console) throws(UsageError)
        -> ExitStatus
    {
        let source = InputSource(path: input)
        var bytes = try source.readAll()
        defer { SecureMemory.wipe(&bytes) }
        let store = FileKeyStore(directory: directory)
        let entry: StoredKey
        if sender {
            guard let object = try? JSONParser.parse(bytes).objectValue else {
                throw UsageError("bad key file \(source.name): not a JSON object")
            }
            guard object["d"] == nil, object["k"] == nil else {
                throw UsageError(
                    "keys import --sender: \(source.name) is a private key; import its public half "
                        + "(pushseal keys public) so the device never holds the sender's secret")
            }
            let key: PublicKey
            do {
                key = try PublicKey(jwk: object)
            } catch {
                throw UsageError("bad key file \(source.name): \(KeyFiles.detail(error))")
            }
            entry = try storeCall { try store.importSender(key) }
        } else {
            let key: PrivateKey
            do {
                key = try PrivateKey(jwk: bytes)
            } catch {
                throw UsageError("bad key file \(source.name): \(KeyFiles.detail(error))")
            }
            entry = try storeCall { try store.importDeviceKey(key) }
        }
        console.output.writeLine(JSONWriter.bytes(.object(entry.listing)))
        return .success
    }

    /// Rotates `repeats` times. Each rotation's key is written and flushed before the rotation
    /// is committed: a key whose output was lost (a full disk, a closed pipe) never becomes
    /// current, and what was reported is exactly what was made durable (the crash-safety test
    /// relies on it).
    static func rotate(store directory: String, suite: EnvelopeSuite?, repeats: Int, console: Console)
        throws(UsageError) -> ExitStatus
    {
        let store = FileKeyStore(directory: directory)
        for _ in 0..<repeats {
            _ = try storeCall {
                try store.rotate(suite: suite) { key in
                    var bytes = JSONWriter.bytes(.object(key.publicKey?.jwk ?? key.privateJWK))
                    defer { SecureMemory.wipe(&bytes) }
                    console.output.writeLine(bytes)
                    try console.output.commit()
                }
            }
        }
        return .success
    }

    static func retire(store directory: String, kid: String, role: StoredKey.Role?, console: Console)
        throws(UsageError) -> ExitStatus
    {
        try storeCall { try FileKeyStore(directory: directory).retire(kid: kid, role: role) }
        console.output.writeLine(JSONWriter.bytes(.object(JSONObject([("retired", .string(kid))]))))
        return .success
    }

    static func list(store directory: String, console: Console) throws(UsageError) -> ExitStatus {
        let entries = try storeCall { try FileKeyStore(directory: directory).entries() }
        for entry in entries { console.output.writeLine(JSONWriter.bytes(.object(entry.listing))) }
        return .success
    }

    /// Prints the store's Web Push receiver keys, `{"kid", "p256dh", "auth"}`, making the receiver
    /// when the store has none (webpush-v1.md, "Forwarded to an iPhone").
    static func webPush(store directory: String, console: Console) throws(UsageError) -> ExitStatus {
        let keys = try storeCall { try FileKeyStore(directory: directory).webPushKeys() }
        let object = JSONObject([
            ("kid", .string(keys.kid)), ("p256dh", .string(keys.p256dh)), ("auth", .string(keys.auth)),
        ])
        console.output.writeLine(JSONWriter.bytes(.object(object)))
        return .success
    }

    /// Prints the store's policy for unsealed payloads, after applying `change` if it has any.
    static func policy(store directory: String, change: PolicyChange, console: Console) throws(UsageError)
        -> ExitStatus
    {
        let store = FileKeyStore(directory: directory)
        let policy =
            change.isEmpty
            ? try storeCall { try store.loadPolicy() }
            : try storeCall { try store.changePolicy { $0 = change.applied(to: $0) } }
        let object = JSONObject([
            ("require-sealed", .bool(policy.requireSealed)), ("neutral-title", .string(policy.neutralTitle)),
            ("neutral-body", .string(policy.neutralBody)),
        ])
        console.output.writeLine(JSONWriter.bytes(.object(object)))
        return .success
    }

    /// Runs a store operation; its failures are status 2, with the store's message.
    private static func storeCall<Result>(_ body: () throws -> Result) throws(UsageError) -> Result {
        do {
            return try body()
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError(KeyFiles.detail(error))
        }
    }
}
