import Dispatch
internal import PushSealCore
internal import PushSealEncryptor

/// Turns one JSON Lines job into a sealed payload or a whole APNs request: the part that
/// `encrypt --json-lines` and `send` share.
///
/// A job is `{"to": <recipient JWK>, "payload": {...}}` (sealed here, `"to"` defaulting to
/// `--to`) or, for `send`, `{"sealed": {...}}` (a payload sealed earlier); with optional
/// `"push-type"`, `"topic"`, `"collapse-id"`, `"expiration"`, `"priority"`, `"apns-id"` and
/// `"media"` (a media-v1 descriptor put into the payload before sealing).
struct JobSealer: Sendable {
    let options: EncryptionOptions
    let requestDefaults: APNsRequestOptions
    let defaultRecipient: Recipient?
    let sender: PrivateKey?
    /// `--contract` and `--event-id`, applied to each `"payload"` before it is sealed.
    var preparation = PayloadPreparation.none
    let recipients = RecipientCache()

    /// Parses a line into a job object.
    static func parse(_ line: [UInt8]?) throws -> JSONObject {
        guard let line else { throw ItemFailure(message: "the line is longer than 16 MiB") }
        do {
            guard let object = try JSONParser.parse(line).objectValue else {
                throw ItemFailure(message: "a line must be a JSON object")
            }
            return object
        } catch let error as JSONParseError {
            throw ItemFailure(message: "not JSON: \(error)")
        }
    }

    /// Seals the job's `"payload"` for its recipient, after the contract's checks; returns the
    /// collapse id the contract's route gives it.
    func seal(_ job: JSONObject) throws -> (sealed: SealedPayload, pushType: PushType, collapseID: String?) {
        let encryptor = try encryptor(for: job)
        guard let payload = job["payload"]?.objectValue else {
            throw ItemFailure(message: "\"payload\" must be a JSON object")
        }
        let prepared = try preparation.prepare(payload, media: job["media"])
        return (try encryptor.seal(prepared.payload), encryptor.options.pushType, prepared.collapseID)
    }

    /// The job's APNs request: sealed here, or (when `acceptsSealed`) from its `"sealed"` payload.
    func request(for job: JSONObject, acceptsSealed: Bool) throws -> APNsRequest {
        if acceptsSealed, let sealed = job["sealed"] {
            guard let object = sealed.objectValue, case .string? = object["enc"] else {
                throw ItemFailure(message: "\"sealed\" must be a sealed PushSeal payload (an object with \"enc\")")
            }
            return try APNsRequest(
                body: JSONWriter.bytes(.object(object)), pushType: try pushType(job), options: try requestOptions(job))
        }
        let (sealed, pushType, collapseID) = try seal(job)
        var options = try requestOptions(job)
        if options.collapseID == nil { options.collapseID = collapseID }
        return try APNsRequest(payload: sealed, pushType: pushType, options: options)
    }

    private func encryptor(for job: JSONObject) throws -> Encryptor {
        let recipient: Recipient
        switch job["to"] {
        case .object(let jwk)?: recipient = try recipients.recipient(for: jwk)
        case nil:
            guard let defaultRecipient else {
                throw ItemFailure(message: "the line has no \"to\" key and no --to was given")
            }
            recipient = defaultRecipient
        case let other?: throw ItemFailure(message: "\"to\" must be a JWK object, not \(other.typeName)")
        }
        var options = self.options
        options.pushType = try pushType(job)
        return try Encryptor(recipient: recipient, sender: sender, options: options)
    }

    private func pushType(_ job: JSONObject) throws -> PushType {
        guard let value = job["push-type"] else { return options.pushType }
        guard let name = value.stringValue, let pushType = PushType(name: name) else {
            throw ItemFailure(message: "\"push-type\" must be \"alert\", \"background\" or \"voip\"")
        }
        return pushType
    }

    private func requestOptions(_ job: JSONObject) throws -> APNsRequestOptions {
        var options = requestDefaults
        func text(_ name: String) throws -> String? {
            guard let value = job[name] else { return nil }
            guard let text = value.stringValue else { throw ItemFailure(message: "\"\(name)\" must be a string") }
            return text
        }
        func integer(_ name: String) throws -> Int? {
            guard let value = job[name] else { return nil }
            guard let number = value.numberValue?.intValue else {
                throw ItemFailure(message: "\"\(name)\" must be an integer")
            }
            return number
        }
        if let topic = try text("topic") { options.topic = topic }
        if let collapseID = try text("collapse-id") { options.collapseID = collapseID }
        if let expiration = try integer("expiration") { options.expiration = expiration }
        if let priority = try integer("priority") { options.priority = priority }
        if let apnsID = try text("apns-id") { options.apnsID = apnsID }
        return options
    }
}

/// Parsed recipient keys by JWK text, so a batch that seals for the same devices again and
/// again validates each key once. Bounded: cleared when it grows past ``capacity``.
final class RecipientCache: @unchecked Sendable {
    private static let capacity = 4_096
    private let lock = DispatchQueue(label: "pushseal.recipient-cache")
    private var recipients: [String: Recipient] = [:]

    func recipient(for jwk: JSONObject) throws -> Recipient {
        let key = JSONWriter.string(.object(jwk))
        if let cached = lock.sync(execute: { recipients[key] }) { return cached }
        let recipient = try Recipient(jwk: jwk)
        lock.sync {
            if recipients.count >= Self.capacity { recipients.removeAll(keepingCapacity: true) }
            recipients[key] = recipient
        }
        return recipient
    }
}
