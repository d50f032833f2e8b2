internal import PushSealCore
internal import PushSealDelivery
internal import PushSealPrimitives

/// `pushseal webpush subscribe|seal|open`: RFC 8291 messages (webpush-v1.md) for a backend in any
/// language, and for opening captured messages.
enum WebPushCommand {
    /// `webpush subscribe`: what a browser does on `PushManager.subscribe()`, for tests and for
    /// receivers a backend runs itself. Writes the receiver's keys (0600) and prints the subscription.
    /// As a browser already subscribed answers with its subscription, an `output` that already
    /// holds a receiver's keys is kept and used, so that a script can run again; any other
    /// existing file is refused, never overwritten.
    static func subscribe(endpoint: String, output: String, console: Console) throws(UsageError) -> ExitStatus {
        var kept: WebPushReceiver?
        if KeyFiles.exists(output) {
            do {
                kept = try Self.receiver(output, secret: true)
            } catch {
                throw UsageError(
                    "cannot write \(output): the file exists and is not a receiver's keys (it is never overwritten): "
                        + error.message)
            }
        }
        let receiver: WebPushReceiver
        let subscription: WebPushSubscription
        do {
            receiver = try kept ?? WebPushReceiver.generate()
            subscription = try receiver.subscription(endpoint: endpoint)
        } catch {
            throw UsageError("webpush subscribe: \(Self.detail(error))")
        }
        if kept != nil {
            console.output.writeLine(JSONWriter.bytes(.object(subscription.json)))
            console.errors.writeLine("pushseal: \(output) already holds a receiver's keys: the subscription uses them")
            return .success
        }
        var keys = JSONWriter.bytes(.object(receiver.json))
        defer { SecureMemory.wipe(&keys) }
        keys.append(0x0A)
        try KeyFiles.writeNew(keys, to: output)
        console.output.writeLine(JSONWriter.bytes(.object(subscription.json)))
        console.errors.writeLine("pushseal: wrote the receiver's keys to \(output) (mode 0600)")
        return .success
    }

    /// `webpush seal`: one content for one subscription, or a JSON Lines batch.
    static func seal(_ arguments: WebPushSealArguments, console: Console) throws(UsageError) -> ExitStatus {
        let defaultSubscription = try arguments.subscriptionFile.map { path throws(UsageError) in
            try Self.subscription(path)
        }
        let sealer = Sealer(ttl: arguments.ttl, vapid: try Self.vapidIssuer(arguments))
        let source = InputSource(path: arguments.input)
        guard arguments.jsonLines else {
            guard let subscription = defaultSubscription else {
                throw UsageError("webpush seal: --subscription is required")
            }
            let content = try source.readAll()
            do {
                let body = try WebPushMessage.seal(content, for: subscription, paddingBlock: arguments.paddingBlock)
                console.output.writeLine(JSONWriter.bytes(.object(try sealer.request(body, for: subscription))))
                return .success
            } catch {
                console.errors.writeLine("pushseal webpush seal: \(source.name): \(error)")
                return .itemsFailed
            }
        }
        var failures = 0
        try source.forEachLine { number, line in
            if let line, line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            do {
                guard let line else { throw ItemFailure(message: "the line is longer than 16 MiB") }
                let job = try Self.object(line)
                var subscription = defaultSubscription
                if let given = job["subscription"] {
                    guard let object = given.objectValue else {
                        throw ItemFailure(message: "\"subscription\" must be an object, not \(given.typeName)")
                    }
                    subscription = try WebPushSubscription(json: object)
                }
                guard let subscription else {
                    throw ItemFailure(message: "\"subscription\" is missing and no --subscription was given")
                }
                guard let payload = job["payload"] else { throw ItemFailure(message: "\"payload\" is missing") }
                let body = try WebPushMessage.seal(
                    JSONWriter.bytes(payload), for: subscription, paddingBlock: arguments.paddingBlock)
                console.output.writeLine(JSONWriter.bytes(.object(try sealer.request(body, for: subscription))))
            } catch {
                failures += 1
                console.output.writeLine(JSONWriter.bytes(.object(Self.lineError(number, error))))
            }
        }
        return failures == 0 ? .success : .itemsFailed
    }

    /// `webpush open`: one captured message body, or a JSON Lines batch of `{"body": base64url}`.
    static func open(receiverFile: String, jsonLines: Bool, input: String?, console: Console) throws(UsageError)
        -> ExitStatus
    {
        let receiver = try Self.receiver(receiverFile)
        let source = InputSource(path: input)
        guard jsonLines else {
            let result = Self.opened(try source.readAll(), with: receiver)
            console.output.writeLine(JSONWriter.bytes(.object(result.json)))
            return result.failed ? .itemsFailed : .success
        }
        var failures = 0
        try source.forEachLine { number, line in
            if let line, line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            do {
                guard let line else { throw ItemFailure(message: "the line is longer than 16 MiB") }
                let job = try Self.object(line)
                guard let text = job["body"]?.stringValue else {
                    throw ItemFailure(message: "\"body\" must be the message in base64url")
                }
                guard let body = Base64URL.decode(text) else {
                    throw ItemFailure(message: "\"body\" is not base64url")
                }
                let result = Self.opened(body, with: receiver)
                if result.failed { failures += 1 }
                console.output.writeLine(JSONWriter.bytes(.object(result.json)))
            } catch {
                failures += 1
                console.output.writeLine(JSONWriter.bytes(.object(Self.lineError(number, error))))
            }
        }
        return failures == 0 ? .success : .itemsFailed
    }

    /// What opening printed: `{"status": "opened", "length", "payload"|"text"|"base64url"}` or
    /// `{"status": "refused", "reason", "detail"}`.
    struct Opened {
        let json: JSONObject
        let failed: Bool
    }

    static func opened(_ body: [UInt8], with receiver: WebPushReceiver) -> Opened {
        let content: [UInt8]
        do {
            content = try WebPushMessage.open(body, with: receiver)
        } catch {
            return Opened(
                json: JSONObject([
                    ("status", .string("refused")), ("reason", .string(error.reason.rawValue)),
                    ("detail", .string(error.detail)),
                ]),
                failed: true)
        }
        var json = JSONObject([("status", .string("opened")), ("length", .number(JSONNumber(content.count)))])
        if let payload = try? JSONParser.parse(content) {
            json["payload"] = payload
        } else if case let text = String(decoding: content, as: UTF8.self), text.utf8.elementsEqual(content) {
            json["text"] = .string(text)
        } else {
            json["base64url"] = .string(Base64URL.encode(content))
        }
        return Opened(json: json, failed: false)
    }

    /// What `seal` prints for a message: the RFC 8030 request to make, `{"endpoint", "length",
    /// "body", "headers": {"Content-Encoding", "TTL", "Authorization"?}}`.
    struct Sealer {
        let ttl: Int
        let vapid: VAPIDIssuer?

        func request(_ body: [UInt8], for subscription: WebPushSubscription) throws -> JSONObject {
            var headers = JSONObject([("Content-Encoding", .string("aes128gcm")), ("TTL", .string(String(ttl)))])
            if let vapid {
                headers["Authorization"] = .string(try vapid.authorization(for: subscription.endpoint))
            }
            return JSONObject([
                ("endpoint", .string(subscription.endpoint)), ("length", .number(JSONNumber(body.count))),
                ("body", .string(Base64URL.encode(body))), ("headers", .object(headers)),
            ])
        }
    }

    private static func vapidIssuer(_ arguments: WebPushSealArguments) throws(UsageError) -> VAPIDIssuer? {
        guard let path = arguments.vapidKeyFile, let subject = arguments.subject else { return nil }
        var bytes = try KeyFiles.secretFile(path)
        do {
            return try VAPIDIssuer(key: VAPIDKey(wipingFileBytes: &bytes), subject: subject)
        } catch {
            throw UsageError("webpush seal: \(path): \(error)")
        }
    }

    private static func lineError(_ number: Int, _ error: any Error) -> JSONObject {
        var object = JSONObject([("line", .number(JSONNumber(number)))])
        if let refusal = error as? WebPushError {
            object["reason"] = .string(refusal.reason.rawValue)
            object["error"] = .string(refusal.detail)
        } else {
            object["error"] = .string("\(error)")
        }
        return object
    }

    private static func object(_ line: [UInt8]) throws(ItemFailure) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw ItemFailure(message: "not JSON: \(error)")
        }
        guard let object = value.objectValue else {
            throw ItemFailure(message: "a line must be a JSON object, not \(value.typeName)")
        }
        return object
    }

    private static func subscription(_ path: String) throws(UsageError) -> WebPushSubscription {
        try objectFile(
            path, kind: "subscription",
            notAnObject: WebPushError(.invalidSubscription, "a subscription is a JSON object"),
            WebPushSubscription.init(json:))
    }

    /// The receiver's keys in the file at `path`; with `secret`, the file must also be kept as a
    /// secret is (``KeyFiles/secretFile(_:)``).
    private static func receiver(_ path: String, secret: Bool = false) throws(UsageError) -> WebPushReceiver {
        try objectFile(
            path, kind: "receiver", secret: secret,
            notAnObject: WebPushError(.invalidReceiverKey, "the receiver's keys are a JSON object"),
            WebPushReceiver.init(json:))
    }

    /// What `make` reads from the JSON object in the file at `path` (which may hold a secret: its
    /// bytes are wiped once parsed); any failure is `bad KIND file PATH: …`, status 2.
    private static func objectFile<Value>(
        _ path: String, kind: String, secret: Bool = false, notAnObject: WebPushError,
        _ make: (JSONObject) throws -> Value
    ) throws(UsageError) -> Value {
        var bytes = secret ? try KeyFiles.secretFile(path) : try InputSource(path: path).readAll()
        defer { SecureMemory.wipe(&bytes) }
        do {
            guard let object = try JSONParser.parse(bytes).objectValue else { throw notAnObject }
            return try make(object)
        } catch {
            throw UsageError("bad \(kind) file \(path): \(Self.detail(error))")
        }
    }

    private static func detail(_ error: any Error) -> String {
        (error as? WebPushError)?.description ?? KeyFiles.detail(error)
    }
}
