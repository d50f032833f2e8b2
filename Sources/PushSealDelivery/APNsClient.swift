internal import PushSealCore

/// Sends jobs to APNs over one HTTP/2 connection with up to `concurrency` streams at once (and
/// never more than the server's SETTINGS_MAX_CONCURRENT_STREAMS), retrying as ``RetryPolicy``
/// says, and reports exactly one ``DeliveryResult`` per item, in input order.
///
/// A request the server refused unprocessed (a GOAWAY's later streams, `REFUSED_STREAM`) is sent
/// again at once on a new connection and does not count as an attempt.
///
/// ```swift
/// let tokens = try ProviderTokenIssuer(authKeyPEM: p8, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
/// let client = try APNsClient(endpoint: .production, tokens: tokens)
/// try client.deliver(jobs.map(DeliveryItem.job)) { result in print(result.status) }
/// ```
public final class APNsClient {
    private let endpoint: APNsEndpoint
    private let tokens: ProviderTokenIssuer
    private let concurrency: Int
    private let policy: RetryPolicy
    private let connection: HTTP2Client

    /// A client for `endpoint`, authenticating with `tokens`.
    /// - Parameters:
    ///   - endpoint: production, sandbox, or another host.
    ///   - tokens: the provider token issuer, shared by every request.
    ///   - concurrency: the most streams in flight at once (1 to 1000); the server's own limit, its
    ///     SETTINGS_MAX_CONCURRENT_STREAMS as it stands at each request, bounds it further.
    ///   - policy: when to retry.
    ///   - answerTimeout: how long one request may wait for its answer (1 to 300 s), and requests
    ///     for a stream, before their connection is given up: a local deadline, whatever the
    ///     server does.
    ///   - caFile: certificates to trust instead of the system's (a mock server's, in tests).
    public init(
        endpoint: APNsEndpoint, tokens: ProviderTokenIssuer, concurrency: Int = 100,
        policy: RetryPolicy = RetryPolicy(), answerTimeout: Duration = .seconds(30),
        caFile: String? = nil
    ) throws {
        guard (1...1000).contains(concurrency) else { throw DeliveryError("concurrency must be 1 to 1000") }
        guard answerTimeout >= .seconds(1) && answerTimeout <= .seconds(300) else {
            throw DeliveryError("the answer timeout must be 1 to 300 seconds")
        }
        self.endpoint = endpoint
        self.tokens = tokens
        self.concurrency = concurrency
        self.policy = policy
        self.connection = try HTTP2Client(baseURL: endpoint.baseURL, caFile: caFile, answerTimeout: answerTimeout)
    }

    /// How often one job may be refused unprocessed before the refusal counts as a transport
    /// failure (a server that refuses everything must not keep a job cycling for ever).
    static let unprocessedLimit = 8
    /// How long the client reads answers after the input said ``DeliveryItem/notYet``, before it
    /// asks again, when no ``InputWake`` tells it sooner: the gateway's claim cooldown. (1 ms cut
    /// the wait of a delivery claimed at a trickle by some 2 ms more, but its idle turns cost the
    /// gateway some 14 % more of the processor per push with APNs 50 ms away.)
    static let notReadyPollMilliseconds = 5
    /// The longest the client waits for the network before it looks at its timers (answer
    /// deadlines, retries) and, with an ``InputWake``, asks an input that was not ready again.
    var idleWaitMilliseconds = 50

    /// A job between attempts.
    private struct Attempt {
        let sequence: Int
        let job: DeliveryJob
        var count = 0
        var token = ""
        var tokenReplaced = false
        var lastReason: String?
        /// The kind of the last transport failure it was retried for, when that was one.
        var lastFailure: TransportFailure?
        var refusals = 0
    }

    /// Sends every item and calls `report` once per item, in the items' order, or as each answer
    /// comes when `inInputOrder` is false (a slow answer then holds no other report). Items are
    /// pulled lazily, one as each stream frees, so a long input is streamed, not held; an input
    /// that has nothing yet says ``DeliveryItem/notYet``, and the answers are read meanwhile: until
    /// `inputWake` is raised, or without one for a few milliseconds, after which the input is
    /// asked again.
    public func deliver(
        _ items: some Sequence<DeliveryItem>, inInputOrder: Bool = true, inputWake: InputWake? = nil,
        report: (DeliveryResult) -> Void
    ) {
        let clock = ContinuousClock()
        var input = items.makeIterator()
        var inputExhausted = false
        var nextSequence = 0
        var nextToReport = 0
        var reported = 0
        var finished: [Int: DeliveryResult] = [:]
        var inFlight: [Int: Attempt] = [:]
        // The next job read from the input, when the connection had no room for it yet.
        var next: Attempt?
        var waiting = DueQueue<Attempt>()
        // Results wait for earlier ones; stop reading ahead once this many are unreported.
        let window = concurrency * 8 + 256

        func finish(_ sequence: Int, _ result: DeliveryResult) {
            guard inInputOrder else {
                report(result)
                reported += 1
                return
            }
            finished[sequence] = result
            while let next = finished.removeValue(forKey: nextToReport) {
                report(next)
                nextToReport += 1
                reported += 1
            }
        }

        func start(_ attempt: Attempt) {
            var attempt = attempt
            attempt.count += 1
            do {
                attempt.token = try tokens.token()
                let headers = [("authorization", "bearer \(attempt.token)")] + attempt.job.headers
                connection.post(
                    id: attempt.sequence, path: endpoint.path(deviceToken: attempt.job.deviceToken), headers: headers,
                    body: attempt.job.body)
                inFlight[attempt.sequence] = attempt
            } catch {
                finish(attempt.sequence, result(attempt, .failed, reason: "\(error)", failure: .client))
            }
        }

        while true {
            let now = clock.now
            // The input said `notYet` this round: poll until its wake, or briefly, then ask it again.
            var inputNotReady = false
            filling: while inFlight.count < concurrency && connection.hasRoom {
                if let attempt = waiting.popDue(by: now) {
                    start(attempt)
                    continue filling
                }
                if next == nil && !inputExhausted && nextSequence - reported < window {
                    guard let item = input.next() else {
                        inputExhausted = true
                        break filling
                    }
                    switch item {
                    case .job(let job): next = Attempt(sequence: nextSequence, job: job)
                    case .invalid(let line, let reason):
                        finish(
                            nextSequence,
                            DeliveryResult(
                                line: line, status: .failed, apnsID: nil, reason: reason, attempts: 0, timestamp: nil))
                    case .notYet:
                        inputNotReady = true
                        break filling
                    }
                    nextSequence += 1
                    continue filling
                }
                if let attempt = next {
                    next = nil
                    start(attempt)
                    continue filling
                }
                break filling
            }
            if inputExhausted && next == nil && inFlight.isEmpty && waiting.isEmpty { break }
            // A retry that is due waits for a stream like the next job: with no stream free, the
            // poll sleeps until an answer frees one (or 50 ms pass for the timers), never spinning.
            let hasSlot = inFlight.count < concurrency && connection.hasRoom
            let hasWork =
                next != nil || (!inputExhausted && nextSequence - reported < window)
                || (waiting.nextDue.map { $0 <= clock.now } ?? false)
            var timeout = inputNotReady && inputWake == nil ? Self.notReadyPollMilliseconds : idleWaitMilliseconds
            if hasSlot, let nextDue = waiting.nextDue {
                let (seconds, attoseconds) = (nextDue - clock.now).components
                timeout = max(0, min(timeout, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)))
            }
            let answered = connection.poll(
                timeoutMilliseconds: timeout, waitingForRoom: hasWork && inFlight.count < concurrency && !hasSlot,
                wake: inputNotReady ? inputWake : nil)
            for (sequence, response) in answered {
                guard var attempt = inFlight.removeValue(forKey: sequence) else { continue }
                if response.unprocessed && attempt.refusals < Self.unprocessedLimit {
                    attempt.refusals += 1
                    attempt.count -= 1
                    waiting.insert(attempt, due: clock.now)
                    continue
                }
                let answer = APNsAnswer(response)
                switch policy.decide(
                    status: response.status, reason: answer.reason, timestamp: answer.timestamp, attempt: attempt.count,
                    tokenReplaced: attempt.tokenReplaced, permanent: response.transportFailureIsPermanent,
                    random: { Double.random(in: $0) })
                {
                case .sent:
                    finish(sequence, result(attempt, .sent, apnsID: answer.apnsID))
                case .failed(let reason):
                    finish(
                        sequence,
                        result(
                            attempt, .failed, apnsID: answer.apnsID, reason: reason, failure: answer.transportFailure))
                case .gaveUp(let reason):
                    var outcome = result(
                        attempt, .failed, apnsID: answer.apnsID, reason: reason, failure: answer.transportFailure)
                    outcome.transient = true
                    finish(sequence, outcome)
                case .unregistered(let timestamp, let reason):
                    finish(
                        sequence,
                        result(attempt, .unregistered, apnsID: answer.apnsID, reason: reason, timestamp: timestamp))
                case .retry(let delay, let reason):
                    attempt.lastReason = reason
                    attempt.lastFailure = answer.transportFailure
                    waiting.insert(attempt, due: clock.now.advanced(by: .milliseconds(Int(delay * 1000))))
                case .replaceTokenAndRetry:
                    attempt.tokenReplaced = true
                    _ = try? tokens.replace(rejected: attempt.token)
                    waiting.insert(attempt, due: clock.now)
                }
            }
        }
    }

    private func result(
        _ attempt: Attempt, _ status: DeliveryResult.Status, apnsID: String? = nil, reason: String? = nil,
        failure: TransportFailure? = nil, timestamp: Int? = nil
    ) -> DeliveryResult {
        // A job that failed after retries reports the last reason it was retried for.
        var result = DeliveryResult(
            line: attempt.job.line, status: status, apnsID: apnsID,
            reason: status == .sent ? nil : reason ?? attempt.lastReason,
            attempts: attempt.count, timestamp: timestamp)
        if status != .sent { result.transportFailure = reason == nil ? attempt.lastFailure : failure }
        return result
    }
}

/// What APNs said: its `apns-id` header, and the `reason` and `timestamp` of its JSON body; or,
/// when nothing answered, the transport's failure.
private struct APNsAnswer {
    let apnsID: String?
    let reason: String?
    let timestamp: Int?
    /// The kind of failure, when no answer came.
    let transportFailure: TransportFailure?

    init(_ response: HTTP2Response) {
        apnsID = response.headers["apns-id"]
        let body = (try? JSONParser.parse(response.body))?.objectValue
        reason = body?["reason"]?.stringValue ?? response.transportError?.detail
        timestamp = body?["timestamp"]?.numberValue?.intValue
        transportFailure = response.status == nil ? response.transportError?.kind : nil
    }
}
