public import PushSealCore
public import PushSealDecryptor
public import PushSealEncryptor

/// A parsed command line: what to run, with every argument checked.
public enum Invocation: Equatable, Sendable {
    /// `pushseal help` / `--help`.
    case help
    /// `pushseal --version`.
    case version
    /// `keys generate --suite S [--kid ID] [--out FILE]`.
    case keysGenerate(suite: EnvelopeSuite, kid: String?, output: String?)
    /// `keys public [FILE|-]`.
    case keysPublic(input: String?, applicationServerKey: Bool)
    /// `keys init --store DIR`.
    case keysInit(store: String)
    /// `keys import --store DIR [--sender] [FILE|-]`.
    case keysImport(store: String, sender: Bool, input: String?)
    /// `keys rotate --store DIR [--suite S] [--repeat N]`.
    case keysRotate(store: String, suite: EnvelopeSuite?, repeats: Int)
    /// `keys retire --store DIR --kid ID [--role device|sender]`.
    case keysRetire(store: String, kid: String, role: StoredKey.Role?)
    /// `keys policy --store DIR [--require-sealed|--allow-unsealed] [--neutral-title T] [--neutral-body B]`.
    case keysPolicy(store: String, change: PolicyChange)
    /// `keys list --store DIR`.
    case keysList(store: String)
    /// `keys webpush --store DIR`: the Web Push receiver's keys, made when there is none.
    case keysWebPush(store: String)
    /// `encrypt …`.
    case encrypt(EncryptArguments)
    /// `decrypt --store DIR [--record] [--receipt] [--json-lines] [--contract FILE] [--ca-file PEM] [--allow-local-fetch] [--media-dir DIR [--allow-local-media]] [FILE|-]`.
    case decrypt(DecryptArguments)
    /// `inspect [FILE|-]`.
    case inspect(input: String?)
    /// `send --auth-key P8 --key-id ID --team-id ID …`.
    case send(SendArguments)
    /// `media seal FILE --out OBJECT [--url URL]`.
    case mediaSeal(file: String, output: String, url: String?)
    /// `media open OBJECT --descriptor D.json --out FILE`.
    case mediaOpen(object: String, descriptor: String, output: String)
    /// `webpush subscribe --endpoint URL --out RECEIVER.json`.
    case webPushSubscribe(endpoint: String, output: String)
    /// `webpush seal [--subscription S.json] [--pad BYTES] [--ttl S] [--vapid-key K --subject S] [--json-lines] [FILE|-]`.
    case webPushSeal(WebPushSealArguments)
    /// `webpush open --receiver RECEIVER.json [--json-lines] [FILE|-]`.
    case webPushOpen(receiver: String, jsonLines: Bool, input: String?)
    /// `webpush send --vapid-key K --subject S …`.
    case webPushSend(WebPushSendArguments)

    /// Parses the arguments after the program name.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        guard let command = arguments.first else { return .help }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") { return .help }
        switch command {
        case "help", "--help", "-h": return .help
        case "--version", "version": return .version
        case "keys": return try parseKeys(rest)
        case "encrypt": return .encrypt(try EncryptArguments.parse(rest))
        case "decrypt":
            let reader = try ArgumentReader(
                rest, command: "decrypt", valued: ["store", "contract", "media-dir", "ca-file"],
                switches: ["record", "receipt", "json-lines", "allow-local-media", "allow-local-fetch"])
            if reader.flag("allow-local-media"), reader.value("media-dir") == nil {
                throw UsageError("decrypt: --allow-local-media is for media downloads: it needs --media-dir")
            }
            return .decrypt(
                DecryptArguments(
                    store: try reader.required("store"), record: reader.flag("record"), receipt: reader.flag("receipt"),
                    jsonLines: reader.flag("json-lines"), contract: reader.value("contract"),
                    mediaDirectory: reader.value("media-dir"), caFile: reader.value("ca-file"),
                    allowLocalMedia: reader.flag("allow-local-media"),
                    allowLocalFetch: reader.flag("allow-local-fetch"),
                    input: try reader.inputFile()))
        case "send": return .send(try SendArguments.parse(rest))
        case "media": return try parseMedia(rest)
        case "webpush": return try parseWebPush(rest)
        case "inspect":
            let reader = try ArgumentReader(rest, command: "inspect", valued: [], switches: [])
            return .inspect(input: try reader.inputFile())
        default:
            throw UsageError(
                "unknown command \"\(command)\" (commands: keys, encrypt, decrypt, inspect, send, media, webpush, help)"
            )
        }
    }

    private static func parseKeys(_ arguments: [String]) throws(UsageError) -> Invocation {
        guard let subcommand = arguments.first else {
            throw UsageError("keys: expected generate, public, init, import, rotate, retire, list or policy")
        }
        let rest = Array(arguments.dropFirst())
        let name = "keys \(subcommand)"
        func noPositionals(_ reader: ArgumentReader) throws(UsageError) {
            guard reader.positionals.isEmpty else {
                throw UsageError("\(name): unexpected argument \"\(reader.positionals[0])\"")
            }
        }
        switch subcommand {
        case "generate":
            let reader = try ArgumentReader(rest, command: name, valued: ["suite", "kid", "out"], switches: [])
            try noPositionals(reader)
            let kid = reader.value("kid")
            if let kid, !KeyID.isValid(kid) {
                throw UsageError("\(name): --kid must be 1 to 64 characters from A-Z a-z 0-9 . _ -")
            }
            return .keysGenerate(
                suite: try suite(reader.required("suite"), name), kid: kid, output: reader.value("out"))
        case "public":
            let reader = try ArgumentReader(rest, command: name, valued: [], switches: ["application-server-key"])
            return .keysPublic(
                input: try reader.inputFile(), applicationServerKey: reader.flag("application-server-key"))
        case "init":
            let reader = try ArgumentReader(rest, command: name, valued: ["store"], switches: [])
            try noPositionals(reader)
            return .keysInit(store: try reader.required("store"))
        case "import":
            let reader = try ArgumentReader(rest, command: name, valued: ["store"], switches: ["sender"])
            return .keysImport(
                store: try reader.required("store"), sender: reader.flag("sender"), input: try reader.inputFile())
        case "rotate":
            let reader = try ArgumentReader(rest, command: name, valued: ["store", "suite", "repeat"], switches: [])
            try noPositionals(reader)
            let suiteName = reader.value("suite")
            let repeats = try reader.integer("repeat") ?? 1
            guard repeats >= 1 else { throw UsageError("keys rotate: --repeat must be at least 1, not \(repeats)") }
            return .keysRotate(
                store: try reader.required("store"),
                suite: try suiteName.map { name throws(UsageError) in try suite(name, "keys rotate") }, repeats: repeats
            )
        case "retire":
            let reader = try ArgumentReader(rest, command: name, valued: ["store", "kid", "role"], switches: [])
            try noPositionals(reader)
            var role: StoredKey.Role?
            if let roleName = reader.value("role") {
                guard let named = StoredKey.Role(exactly: roleName) else {
                    throw UsageError("\(name): --role must be device or sender, not \"\(roleName)\"")
                }
                role = named
            }
            return .keysRetire(store: try reader.required("store"), kid: try reader.required("kid"), role: role)
        case "policy":
            let reader = try ArgumentReader(
                rest, command: name, valued: ["store", "neutral-title", "neutral-body"],
                switches: ["require-sealed", "allow-unsealed"])
            try noPositionals(reader)
            if reader.flag("require-sealed") && reader.flag("allow-unsealed") {
                throw UsageError("\(name): --require-sealed and --allow-unsealed exclude each other")
            }
            let change = PolicyChange(
                requireSealed: reader.flag("require-sealed") ? true : reader.flag("allow-unsealed") ? false : nil,
                neutralTitle: reader.value("neutral-title"), neutralBody: reader.value("neutral-body"))
            for (flag, text) in [("neutral-title", change.neutralTitle), ("neutral-body", change.neutralBody)] {
                if let text, text.isEmpty || text.utf8.count > 256 {
                    throw UsageError("\(name): --\(flag) must be 1 to 256 bytes")
                }
            }
            return .keysPolicy(store: try reader.required("store"), change: change)
        case "list":
            let reader = try ArgumentReader(rest, command: name, valued: ["store"], switches: [])
            try noPositionals(reader)
            return .keysList(store: try reader.required("store"))
        case "webpush":
            let reader = try ArgumentReader(rest, command: name, valued: ["store"], switches: [])
            try noPositionals(reader)
            return .keysWebPush(store: try reader.required("store"))
        default:
            throw UsageError(
                "keys: unknown subcommand \"\(subcommand)\" (generate, public, init, import, rotate, retire, list, policy, webpush)"
            )
        }
    }

    private static func parseMedia(_ arguments: [String]) throws(UsageError) -> Invocation {
        guard let subcommand = arguments.first else { throw UsageError("media: expected seal or open") }
        let rest = Array(arguments.dropFirst())
        func file(_ reader: ArgumentReader, _ what: String) throws(UsageError) -> String {
            guard reader.positionals.count == 1 else { throw UsageError("media \(subcommand): expected one \(what)") }
            return reader.positionals[0]
        }
        switch subcommand {
        case "seal":
            let reader = try ArgumentReader(rest, command: "media seal", valued: ["out", "url"], switches: [])
            return .mediaSeal(
                file: try file(reader, "media FILE"), output: try reader.required("out"), url: reader.value("url"))
        case "open":
            let reader = try ArgumentReader(rest, command: "media open", valued: ["descriptor", "out"], switches: [])
            return .mediaOpen(
                object: try file(reader, "OBJECT"), descriptor: try reader.required("descriptor"),
                output: try reader.required("out"))
        default:
            throw UsageError("media: unknown subcommand \"\(subcommand)\" (seal, open)")
        }
    }

    private static func parseWebPush(_ arguments: [String]) throws(UsageError) -> Invocation {
        guard let subcommand = arguments.first else {
            throw UsageError("webpush: expected subscribe, seal, open or send")
        }
        let rest = Array(arguments.dropFirst())
        let name = "webpush \(subcommand)"
        switch subcommand {
        case "subscribe":
            let reader = try ArgumentReader(rest, command: name, valued: ["endpoint", "out"], switches: [])
            guard reader.positionals.isEmpty else {
                throw UsageError("\(name): unexpected argument \"\(reader.positionals[0])\"")
            }
            return .webPushSubscribe(endpoint: try reader.required("endpoint"), output: try reader.required("out"))
        case "seal":
            let reader = try ArgumentReader(
                rest, command: name, valued: ["subscription", "pad", "ttl", "vapid-key", "subject"],
                switches: ["json-lines"])
            var parsed = WebPushSealArguments(
                subscriptionFile: reader.value("subscription"), jsonLines: reader.flag("json-lines"),
                input: try reader.inputFile())
            guard parsed.subscriptionFile != nil || parsed.jsonLines else {
                throw UsageError(
                    "\(name): --subscription SUBSCRIPTION.json is required (or --json-lines with \"subscription\" on each line)"
                )
            }
            parsed.paddingBlock = try WebPushSealArguments.paddingBlock(reader) ?? parsed.paddingBlock
            parsed.ttl = try WebPushSealArguments.ttl(reader) ?? parsed.ttl
            parsed.vapidKeyFile = reader.value("vapid-key")
            parsed.subject = reader.value("subject")
            guard (parsed.vapidKeyFile == nil) == (parsed.subject == nil) else {
                throw UsageError("\(name): --vapid-key and --subject go together (RFC 8292 needs both)")
            }
            return .webPushSeal(parsed)
        case "send":
            return .webPushSend(try WebPushSendArguments.parse(rest))
        case "open":
            let reader = try ArgumentReader(rest, command: name, valued: ["receiver"], switches: ["json-lines"])
            return .webPushOpen(
                receiver: try reader.required("receiver"), jsonLines: reader.flag("json-lines"),
                input: try reader.inputFile())
        default:
            throw UsageError("webpush: unknown subcommand \"\(subcommand)\" (subscribe, seal, open, send)")
        }
    }

    static func suite(_ name: String, _ command: String) throws(UsageError) -> EnvelopeSuite {
        guard let suite = EnvelopeSuite(shortName: name) else {
            throw UsageError("\(command): --suite must be x25519, p256 or xchacha, not \"\(name)\"")
        }
        return suite
    }
}

/// The arguments of `pushseal webpush seal`.
public struct WebPushSealArguments: Equatable, Sendable {
    /// `--subscription`: the subscription file (required unless `--json-lines`, where it is the default).
    public var subscriptionFile: String?
    /// `--json-lines`: one `{"subscription"?, "payload"}` job per line.
    public var jsonLines = false
    /// `--pad`: the padding block (webpush-v1.md, "Padding").
    public var paddingBlock = WebPushMessage.defaultPaddingBlock
    /// `--ttl`: the RFC 8030 `TTL` header's seconds (default 28 days, the longest push services keep).
    public var ttl = maximumTTL
    /// `--vapid-key`: the application server's key (RFC 8292), for the `Authorization` header.
    public var vapidKeyFile: String?
    /// `--subject`: the VAPID contact, `mailto:` or `https:`.
    public var subject: String?

    /// The longest `TTL`: 28 days.
    public static let maximumTTL = 28 * 24 * 3600

    /// `--ttl`, 0 to 28 days, as `seal` and `send` take it.
    static func ttl(_ reader: ArgumentReader) throws(UsageError) -> Int? {
        try reader.integer("ttl", in: 0...maximumTTL, "seconds (28 days)")
    }

    /// `--pad`, 1 to 3994 bytes (a block of the largest record), as `seal` and `send` take it.
    static func paddingBlock(_ reader: ArgumentReader) throws(UsageError) -> Int? {
        try reader.integer("pad", in: 1...WebPushMessage.maximumContentByteCount + 1, "bytes")
    }
    /// The input file; nil is standard input.
    public var input: String?

    /// Arguments as given; the default padding.
    public init(subscriptionFile: String? = nil, jsonLines: Bool = false, input: String? = nil) {
        self.subscriptionFile = subscriptionFile
        self.jsonLines = jsonLines
        self.input = input
    }
}

/// The arguments of `pushseal webpush send`.
public struct WebPushSendArguments: Equatable, Sendable {
    /// `--vapid-key`: the application server's key.
    public var vapidKeyFile = ""
    /// `--subject`: the VAPID contact.
    public var subject = ""
    /// `--ttl`: the default `TTL` of jobs that give none.
    public var ttl = WebPushSealArguments.maximumTTL
    /// `--pad`: the padding block.
    public var paddingBlock = WebPushMessage.defaultPaddingBlock
    /// `--ca-file`: certificates to trust instead of the system's.
    public var caFile: String?
    /// `--allow-local`: let endpoints reach loopback and local-network addresses.
    public var allowLocal = false
    /// `--allow-host`: the only push-service hosts to send to, when any is given.
    public var allowedHosts: [String] = []
    /// `--timeout`: seconds a request may wait for its answer (1 to 300).
    public var timeoutSeconds = 30
    /// The jobs file; nil is standard input.
    public var input: String?

    static func parse(_ arguments: [String]) throws(UsageError) -> WebPushSendArguments {
        let name = "webpush send"
        let reader = try ArgumentReader(
            arguments, command: name,
            valued: ["vapid-key", "subject", "ttl", "pad", "ca-file", "allow-host", "timeout"],
            switches: ["allow-local"])
        var parsed = WebPushSendArguments()
        parsed.vapidKeyFile = try reader.required("vapid-key")
        parsed.subject = try reader.required("subject")
        parsed.ttl = try WebPushSealArguments.ttl(reader) ?? parsed.ttl
        parsed.paddingBlock = try WebPushSealArguments.paddingBlock(reader) ?? parsed.paddingBlock
        parsed.timeoutSeconds = try reader.integer("timeout", in: 1...300, "seconds") ?? parsed.timeoutSeconds
        parsed.caFile = reader.value("ca-file")
        parsed.allowLocal = reader.flag("allow-local")
        parsed.allowedHosts = reader.all("allow-host")
        parsed.input = try reader.inputFile()
        return parsed
    }
}

/// The arguments of `pushseal decrypt`.
public struct DecryptArguments: Equatable, Sendable {
    /// `--store`: the key store.
    public var store: String
    /// `--record`: record event ids in the ledger, as the extension does.
    public var record = false
    /// `--json-lines`: one payload per line.
    public var jsonLines = false
    /// `--contract`: route decrypted content under this payload contract.
    public var contract: String?
    /// `--media-dir`: fetch, check and write media attachments here.
    public var mediaDirectory: String?
    /// `--ca-file`: certificates to trust for fetched content and media downloads instead of the
    /// system's.
    public var caFile: String?
    /// `--allow-local-media`: let media downloads reach loopback and local-network addresses.
    public var allowLocalMedia = false
    /// `--allow-local-fetch`: let fetches of referenced content, and receipts, reach loopback and
    /// local-network addresses (a gateway on the support engineer's own network).
    public var allowLocalFetch = false
    /// `--receipt`: post the receipt of what each payload showed to the gateway that sent it.
    public var receipt = false
    /// The input file; nil is standard input.
    public var input: String?

    /// Arguments for a store; the rest as given.
    public init(
        store: String, record: Bool = false, receipt: Bool = false, jsonLines: Bool = false, contract: String? = nil,
        mediaDirectory: String? = nil, caFile: String? = nil, allowLocalMedia: Bool = false,
        allowLocalFetch: Bool = false, input: String? = nil
    ) {
        self.receipt = receipt
        self.allowLocalFetch = allowLocalFetch
        self.store = store
        self.record = record
        self.jsonLines = jsonLines
        self.contract = contract
        self.mediaDirectory = mediaDirectory
        self.caFile = caFile
        self.allowLocalMedia = allowLocalMedia
        self.input = input
    }
}

/// What `keys policy` changes; nil members are kept as they are.
public struct PolicyChange: Equatable, Sendable {
    /// `--require-sealed` (true) or `--allow-unsealed` (false).
    public var requireSealed: Bool?
    /// `--neutral-title`.
    public var neutralTitle: String?
    /// `--neutral-body`.
    public var neutralBody: String?

    /// A change of these members.
    public init(requireSealed: Bool? = nil, neutralTitle: String? = nil, neutralBody: String? = nil) {
        self.requireSealed = requireSealed
        self.neutralTitle = neutralTitle
        self.neutralBody = neutralBody
    }

    /// `policy` with this change applied.
    func applied(to policy: StorePolicy) -> StorePolicy {
        var result = policy
        if let requireSealed { result.requireSealed = requireSealed }
        if let neutralTitle { result.neutralTitle = neutralTitle }
        if let neutralBody { result.neutralBody = neutralBody }
        return result
    }

    /// True when nothing changes (the command only prints the policy).
    var isEmpty: Bool { requireSealed == nil && neutralTitle == nil && neutralBody == nil }
}

/// `--contract FILE`, `--event-id auto` and `--media D.json`: what `encrypt` and `send` do to
/// each payload before sealing it.
public struct PayloadOptions: Equatable, Sendable {
    /// The payload contract to check every payload against before sealing.
    public var file: String?
    /// `--event-id auto`: add a random UUID as `event_id` to a payload that has none.
    public var addEventID = false
    /// `--media D.json`: a media-v1 descriptor to put into each payload that has none.
    public var mediaFile: String?

    /// No contract, nothing added.
    public init(file: String? = nil, addEventID: Bool = false, mediaFile: String? = nil) {
        self.file = file
        self.addEventID = addEventID
        self.mediaFile = mediaFile
    }

    static func parse(_ reader: ArgumentReader, command: String) throws(UsageError) -> PayloadOptions {
        var options = PayloadOptions(file: reader.value("contract"), mediaFile: reader.value("media"))
        if let eventID = reader.value("event-id") {
            guard eventID.isExactly("auto") else {
                throw UsageError("\(command): --event-id takes \"auto\" (a random UUID where a payload has none)")
            }
            options.addEventID = true
        }
        return options
    }
}

/// The arguments of `pushseal encrypt`.
public struct EncryptArguments: Equatable, Sendable {
    /// `--to`: the recipient JWK file (required unless `--json-lines`, where it is the default).
    public var recipientFile: String?
    /// `--sender`: the sender private JWK file (HPKE auth mode).
    public var senderFile: String?
    /// The placeholder, clear members, push type, padding and overflow policy.
    public var options = EncryptionOptions()
    /// `--apns-request`: wrap the output with the APNs headers.
    public var apnsRequest = false
    /// `--topic`, `--collapse-id`, `--expiration`, `--priority`.
    public var requestDefaults = APNsRequestOptions(topic: "")
    /// `--json-lines`: one job per input line.
    public var jsonLines = false
    /// `--jobs`: worker threads for a batch (default: the number of cores).
    public var jobs: Int?
    /// `--contract`, `--event-id` and `--media`.
    public var contract = PayloadOptions()
    /// The input file; nil is standard input.
    public var input: String?

    /// The flags that shape sealing and the APNs request, shared with `send`.
    static let sealingFlags: Set<String> = [
        "to", "sender", "placeholder-title", "placeholder-body", "placeholder-loc-key", "clear", "push-type", "pad",
        "topic", "collapse-id", "expiration", "priority", "contract", "event-id", "media",
    ]

    static func parse(_ arguments: [String]) throws(UsageError) -> EncryptArguments {
        let reader = try ArgumentReader(
            arguments, command: "encrypt", valued: sealingFlags.union(["jobs"]),
            switches: ["truncate", "apns-request", "json-lines"])
        var parsed = EncryptArguments()
        parsed.recipientFile = reader.value("to")
        parsed.senderFile = reader.value("sender")
        parsed.jsonLines = reader.flag("json-lines")
        parsed.apnsRequest = reader.flag("apns-request")
        parsed.input = try reader.inputFile()
        guard parsed.recipientFile != nil || parsed.jsonLines else {
            throw UsageError("encrypt: --to RECIPIENT.jwk is required (or --json-lines with \"to\" on each line)")
        }
        (parsed.options, parsed.requestDefaults) = try sealingOptions(reader, command: "encrypt")
        parsed.contract = try PayloadOptions.parse(reader, command: "encrypt")
        if parsed.apnsRequest, !parsed.jsonLines, parsed.requestDefaults.topic.isEmpty {
            throw UsageError("encrypt: --apns-request needs --topic")
        }
        parsed.jobs = try reader.integer("jobs", in: 1...64)
        return parsed
    }
}

extension EncryptArguments {
    /// Placeholder, clear members, push type, padding, overflow and request options.
    static func sealingOptions(_ reader: ArgumentReader, command: String) throws(UsageError)
        -> (EncryptionOptions, APNsRequestOptions)
    {
        var options = EncryptionOptions()
        if let key = reader.value("placeholder-loc-key") {
            guard reader.value("placeholder-title") == nil, reader.value("placeholder-body") == nil else {
                throw UsageError(
                    "\(command): --placeholder-loc-key cannot be combined with --placeholder-title/--placeholder-body")
            }
            options.placeholder = .localized(key: key)
        } else if reader.value("placeholder-title") != nil || reader.value("placeholder-body") != nil {
            options.placeholder = .text(
                title: reader.value("placeholder-title"), body: reader.value("placeholder-body"))
        }
        options.clearMembers = reader.all("clear")
        if let name = reader.value("push-type") {
            guard let pushType = PushType(name: name) else {
                throw UsageError("\(command): --push-type must be alert, background or voip, not \"\(name)\"")
            }
            options.pushType = pushType
        }
        if let pad = try reader.integer("pad") { options.padBlock = pad }
        options.overflow = reader.flag("truncate") ? .truncateBody : .fail
        do {
            try options.validate()
        } catch let error as PushSealError {
            throw UsageError("\(command): \(error.detail)")
        } catch {
            throw UsageError("\(command): \(error)")
        }
        let requestDefaults = APNsRequestOptions(
            topic: reader.value("topic") ?? "", collapseID: reader.value("collapse-id"),
            expiration: try reader.integer("expiration"), priority: try reader.integer("priority"))
        if let priority = requestDefaults.priority, priority != 5 && priority != 10 {
            throw UsageError("\(command): --priority must be 5 or 10, not \(priority)")
        }
        return (options, requestDefaults)
    }
}

/// The arguments of `pushseal send`.
public struct SendArguments: Equatable, Sendable {
    /// `--auth-key`: the APNs token-auth key, a `.p8` PKCS#8 PEM file.
    public var authKeyFile = ""
    /// `--key-id`: the auth key's id (the JWT `kid`).
    public var keyID = ""
    /// `--team-id`: the Apple developer team id (the JWT `iss`).
    public var teamID = ""
    /// Production by default; `--sandbox`, or `--host https://host:port`.
    public var endpoint = "https://api.push.apple.com"
    /// `--ca-file`: certificates to trust instead of the system's.
    public var caFile: String?
    /// `--concurrency`: streams in flight at once on the one connection (default 100; the
    /// server's SETTINGS bound it further).
    public var concurrency = 100
    /// `--timeout`: seconds a request may wait for its answer, and requests for a stream, before
    /// their connection is given up (1 to 300; 30).
    public var answerTimeoutSeconds = 30
    /// `--to` and `--sender`, as for `encrypt`.
    public var recipientFile: String?
    /// The sender key for HPKE auth mode.
    public var senderFile: String?
    /// Placeholder, clear members, push type, padding and overflow, as for `encrypt`.
    public var options = EncryptionOptions()
    /// Default request options (`--topic`, …), overridden by each job's members.
    public var requestDefaults = APNsRequestOptions(topic: "")
    /// `--contract`, `--event-id` and `--media`, as for `encrypt`.
    public var contract = PayloadOptions()
    /// The jobs file; nil is standard input.
    public var input: String?

    static func parse(_ arguments: [String]) throws(UsageError) -> SendArguments {
        let reader = try ArgumentReader(
            arguments, command: "send",
            valued: EncryptArguments.sealingFlags.union([
                "auth-key", "key-id", "team-id", "host", "ca-file", "concurrency", "timeout",
            ]),
            switches: ["truncate", "sandbox"])
        var parsed = SendArguments()
        parsed.authKeyFile = try reader.required("auth-key")
        parsed.keyID = try reader.required("key-id")
        parsed.teamID = try reader.required("team-id")
        if let host = reader.value("host") {
            guard !reader.flag("sandbox") else { throw UsageError("send: --host and --sandbox exclude each other") }
            guard host.hasPrefix("https://") else {
                throw UsageError("send: --host must be an https:// URL, not \"\(host)\"")
            }
            parsed.endpoint = host
        } else if reader.flag("sandbox") {
            parsed.endpoint = "https://api.sandbox.push.apple.com"
        }
        parsed.caFile = reader.value("ca-file")
        parsed.concurrency = try reader.integer("concurrency", in: 1...1000) ?? parsed.concurrency
        parsed.answerTimeoutSeconds =
            try reader.integer("timeout", in: 1...300, "seconds") ?? parsed.answerTimeoutSeconds
        parsed.recipientFile = reader.value("to")
        parsed.senderFile = reader.value("sender")
        (parsed.options, parsed.requestDefaults) = try EncryptArguments.sealingOptions(reader, command: "send")
        parsed.contract = try PayloadOptions.parse(reader, command: "send")
        parsed.input = try reader.inputFile()
        return parsed
    }
}
