import Dispatch
internal import PushSealCore
internal import PushSealURL
internal import Synchronization

/// Sends sealed Web Push messages to their push services (RFC 8030), one HTTP/2 connection per
/// origin, every origin on a thread of its own (32 at a time) so that a slow or dead push service
/// holds up only the messages bound for it.
///
/// An endpoint is a stranger's choice: unless the client is made to allow local destinations, a
/// host that resolves only to loopback, private, link-local or unique-local addresses is refused
/// (each connection checks every address it resolves), and an allow-list of push-service hosts,
/// when given, refuses every other host before any connection.
/// Answers are bounded in size and time by the HTTP/2 client.
///
/// ```swift
/// let key = try VAPIDKey(wipingFileBytes: &keyFile)
/// let client = try WebPushClient(vapid: VAPIDIssuer(key: key, subject: "mailto:ops@example.com"))
/// for result in client.deliver(jobs) { print(result.line, result.status) }
/// ```
public final class WebPushClient: Sendable {
    /// The most requests in flight on one origin's connection (the server's own limit bounds it
    /// further).
    static let concurrencyPerOrigin = 100
    /// How often a request the server refused unprocessed (GOAWAY, `REFUSED_STREAM`) is sent again
    /// before the refusal counts as a transport failure.
    static let unprocessedLimit = 8
    /// The most origins served at once, each on its thread: subscriptions of the world share a few
    /// origins, but a batch can name thousands of hosts (every endpoint is a stranger's choice).
    static let concurrentOrigins = 32

    private let vapid: VAPIDIssuer?
    private let caFile: String?
    private let allowsLocalDestinations: Bool
    private let allowedHosts: Set<String>?
    private let answerTimeout: Duration
    private let retries: Int
    private let maximumRetryAfter: Int

    /// A client.
    /// - Parameters:
    ///   - vapid: the application server's identity (RFC 8292), sent with every request; nil sends
    ///     none (push services that require VAPID then answer 401 or 403).
    ///   - caFile: certificates to trust instead of the system's (a mock push service's, in tests).
    ///   - allowsLocalDestinations: let endpoints reach loopback and local-network addresses
    ///     (tests, and push services run on the operator's own network).
    ///   - allowedHosts: when given, the only push-service hosts messages may go to: a name, or
    ///     `*.` and a domain for every host below it (`*.notify.windows.com`, not the domain itself).
    ///   - answerTimeout: how long one request may wait for its answer (1 to 300 s).
    ///   - retries: how often a 429, a 5xx or a lost connection is tried again here (0 to 5), each
    ///     after its `Retry-After` when that is at most `maximumRetryAfter` seconds (else the
    ///     result is a transient failure, for a durable outbox to try later).
    ///   - maximumRetryAfter: the longest `Retry-After` waited for here, in seconds.
    public init(
        vapid: VAPIDIssuer?, caFile: String? = nil, allowsLocalDestinations: Bool = false,
        allowedHosts: Set<String>? = nil, answerTimeout: Duration = .seconds(30), retries: Int = 1,
        maximumRetryAfter: Int = 10
    ) throws {
        guard answerTimeout >= .seconds(1) && answerTimeout <= .seconds(300) else {
            throw DeliveryError("the answer timeout must be 1 to 300 seconds")
        }
        guard (0...5).contains(retries) else { throw DeliveryError("retries must be 0 to 5") }
        self.vapid = vapid
        self.caFile = caFile
        self.allowsLocalDestinations = allowsLocalDestinations
        self.allowedHosts = allowedHosts.map { Set($0.map { $0.lowercased() }) }
        self.answerTimeout = answerTimeout
        self.retries = retries
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// The VAPID key's public point (base64url of 65 bytes), the `applicationServerKey` a web
    /// page subscribes with; nil when the client sends no VAPID.
    public var applicationServerKey: String? { vapid?.publicKey }

    /// Why no message could ever go to `endpoint` under this client's rules, or nil: not a usable
    /// https URL, a host off the allow-list, or (unless local destinations are allowed) a host
    /// that is a local IP address. A name that resolves to a local address passes here, and is
    /// refused as each connection is made. For checking a subscription when it is registered.
    public func refusal(forEndpoint endpoint: String) -> String? {
        let url: HTTPSURL
        do {
            url = try HTTPSURL(endpoint)
        } catch {
            return "is not a usable https URL: \(error.detail)"
        }
        if !isAllowed(host: url.host) {
            return "names \(url.host), which is not one of the allowed push services"
        }
        if !allowsLocalDestinations, url.hostIsLocalAddress {
            return "names \(url.host), a loopback, private or link-local address"
        }
        return nil
    }

    /// Whether `host` is on the allow-list (any host, without one): named as it is, or below a
    /// `*.domain` entry.
    func isAllowed(host: String) -> Bool {
        guard let allowedHosts else { return true }
        let host = host.lowercased()
        if allowedHosts.contains(host) { return true }
        var rest = host[...]
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if allowedHosts.contains("*.\(rest)") { return true }
        }
        return false
    }

    /// Sends every job and returns one result per job, in the jobs' order.
    public func deliver(_ jobs: [WebPushJob]) -> [WebPushResult] {
        let results = Mutex<[Int: WebPushResult]>([:])
        deliver(jobs) { index, result in results.withLock { $0[index] = result } }
        return results.withLock { all in jobs.indices.compactMap { all[$0] } }
    }

    /// Sends every job, and calls `received` with each job's index and result as soon as its
    /// origin is done with it (from that origin's thread); returns once every job has its result.
    /// A slow origin delays only its own jobs' results. Once `isCancelled` says so, no request is
    /// begun: the jobs not yet sent end `failed`, transient, with no attempt and the reason
    /// "not sent", while the requests in flight are answered (or time out) as usual.
    public func deliver(
        _ jobs: [WebPushJob], isCancelled: @escaping @Sendable () -> Bool = { false },
        received: @escaping @Sendable (Int, WebPushResult) -> Void
    ) {
        var byOrigin: [String: [Int]] = [:]
        for (index, job) in jobs.enumerated() { byOrigin[job.origin, default: []].append(index) }
        let group = DispatchGroup()
        let slots = DispatchSemaphore(value: Self.concurrentOrigins)
        for (origin, indices) in byOrigin {
            slots.wait()
            group.enter()
            DispatchQueue(label: "pushseal.webpush.\(origin)").async {
                defer {
                    slots.signal()
                    group.leave()
                }
                let delivered = self.deliver(indices.map { jobs[$0] }, to: origin, isCancelled: isCancelled)
                for (index, result) in zip(indices, delivered) { received(index, result) }
            }
        }
        group.wait()
    }

    /// Sends every job from the calling thread, one origin after another, and returns one result
    /// per job in the jobs' order; none is begun once `isCancelled` says so (those end as
    /// ``deliver(_:isCancelled:received:)`` says). For a caller that gives each origin a thread of
    /// its own already, as the gateway's lanes do: no other thread is used.
    public func deliverOnThisThread(_ jobs: [WebPushJob], isCancelled: () -> Bool = { false }) -> [WebPushResult] {
        var byOrigin: [String: [Int]] = [:]
        var origins: [String] = []
        for (index, job) in jobs.enumerated() {
            if byOrigin[job.origin] == nil { origins.append(job.origin) }
            byOrigin[job.origin, default: []].append(index)
        }
        var results = [WebPushResult?](repeating: nil, count: jobs.count)
        for origin in origins {
            let indices = byOrigin[origin] ?? []
            let delivered = deliver(indices.map { jobs[$0] }, to: origin, isCancelled: isCancelled)
            for (index, result) in zip(indices, delivered) { results[index] = result }
        }
        return results.compactMap { $0 }
    }

    /// A job between attempts.
    private struct Attempt {
        let index: Int
        let job: WebPushJob
        var count = 0
        var refusals = 0
    }

    /// The jobs of one origin, over one connection (a new one when it fails), from one thread;
    /// none begun once `isCancelled`.
    private func deliver(_ jobs: [WebPushJob], to origin: String, isCancelled: () -> Bool) -> [WebPushResult] {
        var results = [WebPushResult?](repeating: nil, count: jobs.count)
        func fail(_ error: TransportError) -> [WebPushResult] {
            jobs.map {
                WebPushResult(
                    line: $0.line, status: .failed, httpStatus: nil, reason: error.detail, attempts: 0,
                    retryAfterSeconds: nil, transient: false, transportFailure: error.kind)
            }
        }
        if let host = jobs.first?.url.host, !isAllowed(host: host) {
            return fail(TransportError(.notAllowed, "\(host) is not one of the allowed push services"))
        }
        let client: HTTP2Client
        do {
            client = try HTTP2Client(
                baseURL: origin, caFile: caFile, answerTimeout: answerTimeout,
                allowsLocalDestinations: allowsLocalDestinations, offeringHTTP1: true)
        } catch {
            return fail(TransportError(.client, "\(error)"))
        }
        let clock = ContinuousClock()
        var waiting = DueQueue<Attempt>()
        for (index, job) in jobs.enumerated() { waiting.insert(Attempt(index: index, job: job), due: clock.now) }
        var inFlight: [Int: Attempt] = [:]
        // Set once the origin turns out not to speak HTTP/2: the rest goes over HTTP/1.1.
        var lacksHTTP2 = false

        func finish(_ attempt: Attempt, _ result: WebPushResult) { results[attempt.index] = result }

        /// Records `answer` for `attempt`, or schedules the attempt again.
        func handle(_ answer: WebPushAnswer, _ attempt: Attempt) {
            switch answer.outcome {
            case .sent, .gone, .failed:
                finish(attempt, answer.result(for: attempt.job, attempts: attempt.count, transient: false))
            case .transient:
                let wait = answer.retryAfterSeconds ?? (1 << min(attempt.count - 1, 4))
                if attempt.count <= retries, wait <= maximumRetryAfter {
                    waiting.insert(attempt, due: clock.now.advanced(by: .seconds(wait)))
                } else {
                    finish(attempt, answer.result(for: attempt.job, attempts: attempt.count, transient: true))
                }
            }
        }

        while !lacksHTTP2 && ((!waiting.isEmpty && !isCancelled()) || !inFlight.isEmpty) {
            while inFlight.count < Self.concurrencyPerOrigin, client.hasRoom, !isCancelled(),
                var attempt = waiting.popDue(by: clock.now)
            {
                attempt.count += 1
                do {
                    client.post(
                        id: attempt.index, path: attempt.job.url.target, headers: try headers(for: attempt.job),
                        body: attempt.job.body)
                    inFlight[attempt.index] = attempt
                } catch {
                    finish(attempt, Self.result(attempt, .failed, reason: "\(error)"))
                }
            }
            let hasDueWork = waiting.nextDue.map { $0 <= clock.now } ?? false
            for (index, response) in client.poll(timeoutMilliseconds: 50, waitingForRoom: hasDueWork && !client.hasRoom)
            {
                guard var attempt = inFlight.removeValue(forKey: index) else { continue }
                if response.serverLacksHTTP2 || (response.unprocessed && attempt.refusals < Self.unprocessedLimit) {
                    lacksHTTP2 = lacksHTTP2 || response.serverLacksHTTP2
                    attempt.refusals += response.unprocessed ? 1 : 0
                    attempt.count -= 1
                    waiting.insert(attempt, due: clock.now)
                    continue
                }
                handle(WebPushAnswer(response), attempt)
            }
        }
        if lacksHTTP2 {
            var http1 = HTTP1Origin(
                caFile: caFile, allowsLocalDestinations: allowsLocalDestinations, answerTimeout: answerTimeout)
            while !waiting.isEmpty && !isCancelled() {
                guard var attempt = waiting.popDue(by: clock.now) else {
                    if let due = waiting.nextDue { HTTP1Origin.pause(until: due) }
                    continue
                }
                attempt.count += 1
                do {
                    handle(
                        http1.post(attempt.job, headers: try headers(for: attempt.job)), attempt)
                } catch {
                    finish(attempt, Self.result(attempt, .failed, reason: "\(error)"))
                }
            }
        }
        return results.enumerated().map { index, result in
            result
                ?? WebPushResult(
                    line: jobs[index].line, status: .failed, httpStatus: nil, reason: "not sent", attempts: 0,
                    retryAfterSeconds: nil, transient: true)
        }
    }

    /// RFC 8030's request headers, and VAPID's.
    private func headers(for job: WebPushJob) throws -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("ttl", String(job.ttl)), ("content-encoding", "aes128gcm"), ("content-type", "application/octet-stream"),
        ]
        if let urgency = job.urgency { headers.append(("urgency", urgency.rawValue)) }
        if let topic = job.topic { headers.append(("topic", topic)) }
        if let vapid { headers.append(("authorization", try vapid.authorization(for: job.endpoint))) }
        return headers
    }

    /// A job the client could not send (its VAPID signature failed): a failure of its own.
    private static func result(_ attempt: Attempt, _ status: WebPushResult.Status, reason: String) -> WebPushResult {
        WebPushResult(
            line: attempt.job.line, status: status, httpStatus: nil, reason: reason, attempts: attempt.count,
            retryAfterSeconds: nil, transient: false, transportFailure: .client)
    }
}

/// What a push service's answer means (webpush-v1.md, "Delivery").
struct WebPushAnswer {
    enum Outcome {
        case sent, gone, failed, transient
    }

    let outcome: Outcome
    let status: Int?
    let reason: String?
    let retryAfterSeconds: Int?
    /// The kind of failure, when no answer came.
    let transportFailure: TransportFailure?

    /// The most of a refusal's body kept in its reason.
    static let reasonLimit = 200

    init(_ response: HTTP2Response) {
        self.init(
            status: response.status, retryAfter: response.headers["retry-after"], body: response.body,
            transportError: response.transportError, permanent: response.transportFailureIsPermanent)
    }

    /// An answer (`status`, its `Retry-After` and body), or a transport failure when `status` is nil.
    init(status: Int?, retryAfter: String?, body: [UInt8], transportError: TransportError?, permanent: Bool) {
        self.status = status
        retryAfterSeconds = retryAfter.flatMap(Self.seconds)
        guard let status else {
            outcome = permanent ? .failed : .transient
            reason = transportError?.detail
            transportFailure = transportError?.kind ?? .network
            return
        }
        transportFailure = nil
        switch status {
        case 200..<300: outcome = .sent
        case 404, 410: outcome = .gone
        case 429, 500..<600: outcome = .transient
        default: outcome = .failed
        }
        reason = outcome == .sent ? nil : Self.reason(status: status, body: body)
    }

    func result(for job: WebPushJob, attempts: Int, transient: Bool) -> WebPushResult {
        let resultStatus: WebPushResult.Status =
            switch outcome {
            case .sent: .sent
            case .gone: .gone
            case .failed, .transient: .failed
            }
        return WebPushResult(
            line: job.line, status: resultStatus, httpStatus: status, reason: reason, attempts: attempts,
            retryAfterSeconds: retryAfterSeconds, transient: transient, transportFailure: transportFailure)
    }

    /// `Retry-After` in its delta-seconds form (RFC 9110 §10.2.3); an HTTP-date is not read, and the
    /// client's own backoff applies.
    static func seconds(_ value: String) -> Int? {
        let text = value.trimmingPrefixAndSuffix(" ")
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Int(text)
    }

    /// `HTTP 413: what the body says`, the body cut to ``reasonLimit`` printable ASCII characters.
    static func reason(status: Int, body: [UInt8]) -> String {
        let printable = body.prefix(reasonLimit).map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: " ") }
        let text = String(decoding: printable, as: UTF8.self).trimmingPrefixAndSuffix(" ")
        return text.isEmpty ? "HTTP \(status)" : "HTTP \(status): \(text)"
    }
}

extension String {
    /// The text without `character` at either end.
    fileprivate func trimmingPrefixAndSuffix(_ character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
