internal import PushSealCore
internal import PushSealDelivery

/// `pushseal webpush send`: seals JSON Lines jobs for their subscriptions and sends them to their
/// push services (RFC 8030, with VAPID), one result line per job, in input order.
enum WebPushSendCommand {
    static func run(_ arguments: WebPushSendArguments, console: Console) throws(UsageError) -> ExitStatus {
        var keyBytes = try KeyFiles.secretFile(arguments.vapidKeyFile)
        let client: WebPushClient
        do {
            let vapid = try VAPIDIssuer(key: VAPIDKey(wipingFileBytes: &keyBytes), subject: arguments.subject)
            client = try WebPushClient(
                vapid: vapid, caFile: arguments.caFile, allowsLocalDestinations: arguments.allowLocal,
                allowedHosts: arguments.allowedHosts.isEmpty ? nil : Set(arguments.allowedHosts),
                answerTimeout: .seconds(arguments.timeoutSeconds))
        } catch {
            throw UsageError("webpush send: \(arguments.vapidKeyFile): \(error)")
        }
        // Every line is answered in order: a bad line by its error, a job by its delivery.
        var answers: [Int: JSONObject] = [:]
        var jobs: [WebPushJob] = []
        var order: [Int] = []
        try InputSource(path: arguments.input).forEachLine { number, line in
            if let line, line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            order.append(number)
            do {
                guard let line else { throw ItemFailure(message: "the line is longer than 16 MiB") }
                jobs.append(try Self.job(number, line, arguments))
            } catch {
                var answer = JSONObject([("line", .number(JSONNumber(number))), ("status", .string("failed"))])
                if let refusal = error as? WebPushError { answer["reason"] = .string(refusal.reason.rawValue) }
                answer["error"] = .string("\(error)")
                answer["attempts"] = .number(JSONNumber(0))
                answers[number] = answer
            }
        }
        for result in client.deliver(jobs) { answers[result.line] = Self.json(result) }
        var counts: [String: Int] = [:]
        for number in order {
            guard let answer = answers[number] else { continue }
            counts[answer["status"]?.stringValue ?? "failed", default: 0] += 1
            console.output.writeLine(JSONWriter.bytes(.object(answer)))
        }
        let summary = ["sent", "gone", "failed"].map { "\(counts[$0] ?? 0) \($0)" }.joined(separator: ", ")
        console.errors.writeLine("pushseal webpush send: \(summary)")
        return counts.keys.allSatisfy { $0 == "sent" } ? .success : .itemsFailed
    }

    /// A line's job: `{"subscription", "payload", "ttl"?, "urgency"?, "topic"?}`, sealed here.
    private static func job(_ number: Int, _ line: [UInt8], _ arguments: WebPushSendArguments) throws -> WebPushJob {
        guard let object = try JSONParser.parse(line).objectValue else {
            throw ItemFailure(message: "a line must be a JSON object")
        }
        guard let given = object["subscription"]?.objectValue else {
            throw ItemFailure(message: "\"subscription\" must be the browser's PushSubscription.toJSON() object")
        }
        let subscription = try WebPushSubscription(json: given)
        guard let payload = object["payload"] else { throw ItemFailure(message: "\"payload\" is missing") }
        var ttl = arguments.ttl
        if let value = object["ttl"] {
            guard let seconds = value.numberValue?.intValue else {
                throw ItemFailure(message: "\"ttl\" must be a whole number of seconds")
            }
            ttl = seconds
        }
        var urgency: WebPushUrgency?
        if let value = object["urgency"] {
            guard let name = value.stringValue, let named = WebPushUrgency(rawValue: name) else {
                throw ItemFailure(message: "\"urgency\" must be very-low, low, normal or high")
            }
            urgency = named
        }
        var topic: String?
        if let value = object["topic"] {
            guard let text = value.stringValue else { throw ItemFailure(message: "\"topic\" must be a string") }
            topic = text
        }
        let body = try WebPushMessage.seal(
            JSONWriter.bytes(payload), for: subscription, paddingBlock: arguments.paddingBlock)
        return try WebPushJob(
            line: number, endpoint: subscription.endpoint, body: body, ttl: ttl, urgency: urgency, topic: topic)
    }

    private static func json(_ result: WebPushResult) -> JSONObject {
        var object = JSONObject([
            ("line", .number(JSONNumber(result.line))), ("status", .string(result.status.rawValue)),
        ])
        if let status = result.httpStatus { object["http_status"] = .number(JSONNumber(status)) }
        if let reason = result.reason { object["reason"] = .string(reason) }
        object["attempts"] = .number(JSONNumber(result.attempts))
        if let seconds = result.retryAfterSeconds { object["retry_after"] = .number(JSONNumber(seconds)) }
        if result.status == .failed { object["transient"] = .bool(result.transient) }
        return object
    }
}
