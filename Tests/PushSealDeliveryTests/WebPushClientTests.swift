import Foundation
import PushSealCore
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealDelivery

/// Delivery to push services (RFC 8030) against `mock_push_service.py`, which checks every
/// request's headers and VAPID token and decrypts each message with the receiver's keys.
@Suite("Web Push delivery")
struct WebPushClientTests {
    let directory = TemporaryDirectory()
    let receiver: WebPushReceiver
    let vapid: VAPIDIssuer
    let service: MockPushService

    init() throws {
        receiver = try WebPushReceiver.generate()
        let receiverFile = try directory.write("receiver.json", JSONWriter.string(.object(receiver.json)))
        var keyFile = JSONWriter.bytes(.object(try PrivateKey.generate(suite: .p256).privateJWK))
        let key = try VAPIDKey(wipingFileBytes: &keyFile)
        vapid = try VAPIDIssuer(key: key, subject: "mailto:ops@example.com")
        service = try MockPushService(
            receiverFile: receiverFile, vapidPublicKey: key.publicKey, slowMilliseconds: 4_000, in: directory)
    }

    func job(_ line: Int, _ endpoint: String, _ content: String, urgency: WebPushUrgency? = nil, topic: String? = nil)
        throws -> WebPushJob
    {
        let subscription = try receiver.subscription(endpoint: endpoint)
        return try WebPushJob(
            line: line, endpoint: endpoint, body: try WebPushMessage.seal(Array(content.utf8), for: subscription),
            ttl: 3_600, urgency: urgency, topic: topic)
    }

    func client(retries: Int = 1, allowedHosts: Set<String>? = nil) throws -> WebPushClient {
        try WebPushClient(
            vapid: vapid, caFile: service.certificate, allowsLocalDestinations: true, allowedHosts: allowedHosts,
            answerTimeout: .seconds(10), retries: retries)
    }

    /// A mock push service of its own that speaks HTTP/1.1 only (closing connections idle for
    /// `idleCloseMilliseconds`, when given), a client that trusts it, and the directory that holds
    /// its log (keep it while reading).
    func http1Service(retries: Int, idleCloseMilliseconds: Int? = nil) throws -> (
        MockPushService, WebPushClient, TemporaryDirectory
    ) {
        let own = TemporaryDirectory()
        let receiverFile = try own.write("receiver.json", JSONWriter.string(.object(receiver.json)))
        let http1 = try MockPushService(
            receiverFile: receiverFile, http1: true, idleCloseMilliseconds: idleCloseMilliseconds, in: own)
        let client = try WebPushClient(
            vapid: vapid, caFile: http1.certificate, allowsLocalDestinations: true, answerTimeout: .seconds(10),
            retries: retries)
        return (http1, client, own)
    }

    @Test("201 is sent; the service got the headers, a valid VAPID token, and a message it decrypts to the content")
    func sent() throws {
        let results = try client().deliver([
            try job(0, service.endpoint("ok"), #"{"title":"one"}"#, urgency: .high, topic: "appointment-7"),
            try job(1, service.endpoint("ok"), #"{"title":"two"}"#),
        ])
        #expect(results.map(\.status) == [.sent, .sent])
        #expect(results.map(\.httpStatus) == [201, 201])
        let requests = service.requests()
        #expect(requests.count == 2)
        let first = try #require(requests.first { ($0["urgency"] as? String) == "high" })
        #expect(first["ttl"] as? String == "3600")
        #expect(first["topic"] as? String == "appointment-7")
        #expect((first["vapid"] as? [String: Any])?["sub"] as? String == "mailto:ops@example.com")
        let content = try #require((first["content"] as? String).flatMap { Base64URL.decode($0) })
        #expect(String(decoding: content, as: UTF8.self) == #"{"title":"one"}"#)
        #expect(Set(requests.compactMap { $0["connection"] as? Int }).count == 1, "one connection for the origin")
    }

    @Test("410 and 404 are gone; 400, 403 and 413 fail for good with the service's reason, made printable")
    func refusals() throws {
        let scripts = ["gone", "missing", "bad", "forbidden", "toolarge"]
        let results = try client().deliver(
            try scripts.enumerated().map { try job($0.offset, service.endpoint($0.element), "x") })
        #expect(results.map(\.status) == [.gone, .gone, .failed, .failed, .failed])
        #expect(results.map(\.httpStatus) == [410, 404, 400, 403, 413])
        #expect(results.allSatisfy { $0.attempts == 1 && !$0.transient })
        #expect(results[2].reason == "HTTP 400: Bad Request [31m with a control byte")
        #expect(results[4].reason == "HTTP 413: Payload Too Large")
    }

    @Test("429 with Retry-After: 1 is sent again after a second; a 500 once is retried; 503 for an hour is transient")
    func transient() throws {
        let started = ContinuousClock.now
        let results = try client().deliver([
            try job(0, service.endpoint("throttle"), "a"), try job(1, service.endpoint("flaky"), "b"),
            try job(2, service.endpoint("busy"), "c"),
        ])
        #expect(results.map(\.status) == [.sent, .sent, .failed])
        #expect(results.map(\.attempts) == [2, 2, 1])
        #expect(results[2].transient)
        #expect(results[2].retryAfterSeconds == 3_600)
        #expect(ContinuousClock.now - started >= .seconds(1), "the Retry-After was honoured")
        let noRetries = try client(retries: 0).deliver([try job(0, service.endpoint("throttle"), "d")])
        #expect(noRetries[0].status == .failed && noRetries[0].transient && noRetries[0].retryAfterSeconds == 1)
    }

    @Test("a dead host fails transiently without holding up another origin, and neither does a slow one")
    func deadAndSlowHosts() throws {
        let dead = "https://127.0.0.1:9/push/ok/x"
        let started = ContinuousClock.now
        let results = try client(retries: 0).deliver([
            try job(0, dead, "a"), try job(1, service.endpoint("ok"), "b"), try job(2, service.endpoint("slow"), "c"),
        ])
        #expect(results[0].status == .failed && results[0].transient && results[0].transportFailure == .network)
        #expect(results[1].status == .sent && results[1].transportFailure == nil)
        #expect(results[2].status == .sent)
        #expect(ContinuousClock.now - started < .seconds(15))
    }

    @Test("a push service without HTTP/2 is reached over one kept-alive HTTP/1.1 connection, with the same answers")
    func http1() throws {
        let (http1, client, own) = try http1Service(retries: 1)
        defer { withExtendedLifetime(own) { http1.stop() } }
        let scripts = ["ok", "ok", "gone", "toolarge", "throttle"]
        let results = client.deliver(
            try scripts.enumerated().map { try job($0.offset, http1.endpoint($0.element), "content \($0.offset)") })
        #expect(results.map(\.status) == [.sent, .sent, .gone, .failed, .sent])
        #expect(results.map(\.httpStatus) == [201, 201, 410, 413, 201])
        #expect(
            results.allSatisfy { $0.transportFailure == nil }, "answers, refusals included, are no transport failure")
        #expect(results[4].attempts == 2, "the 429 was sent again after its Retry-After")
        let requests = http1.requests()
        #expect(requests.count == 6)
        #expect(requests.allSatisfy { ($0["http1"] as? Bool) == true })
        // The first connection, made for HTTP/2, learned from ALPN that the server lacks it and sent
        // nothing; every request then went over the one connection after it.
        #expect(Set(requests.compactMap { $0["connection"] as? Int }) == [2], "one kept-alive connection")
        let content = try #require((requests.first?["content"] as? String).flatMap { Base64URL.decode($0) })
        #expect(String(decoding: content, as: UTF8.self) == "content 0")
    }

    @Test("over HTTP/1.1, a 201 whose body runs to 50 MB is read no further than 64 KiB and fails as over HTTP/2")
    func http1AnswerBounded() throws {
        let (http1, client, own) = try http1Service(retries: 0)
        defer { withExtendedLifetime(own) { http1.stop() } }
        let started = ContinuousClock.now
        let results = client.deliver([
            try job(0, http1.endpoint("huge"), "a"), try job(1, http1.endpoint("ok"), "b"),
        ])
        #expect(results[0].status == .failed && !results[0].transient)
        #expect(results[0].reason == "the response body was over 65536 bytes", "\(results[0].reason ?? "")")
        #expect(results[1].status == .sent, "the next request goes on a fresh connection")
        #expect(ContinuousClock.now - started < .seconds(5), "50 MB were not read")
        let connections = Set(http1.requests().compactMap { $0["connection"] as? Int })
        #expect(connections.count == 2, "the connection read past its cap is not used again: \(connections)")
    }

    @Test("over HTTP/1.1, a kept-alive connection the service closed while idle is checked and not used")
    func http1IdleClose() throws {
        let (http1, client, own) = try http1Service(retries: 1, idleCloseMilliseconds: 200)
        defer { withExtendedLifetime(own) { http1.stop() } }
        // 429 with Retry-After: 1, so the connection sits idle past the service's 200 ms before the retry.
        let results = client.deliver([try job(0, http1.endpoint("throttle"), "a")])
        #expect(results[0].status == .sent && results[0].attempts == 2, "\(results[0])")
        let connections = http1.requests().compactMap { $0["connection"] as? Int }
        #expect(connections.count == 2 && Set(connections).count == 2, "the retry went on a fresh connection")
    }

    @Test("over HTTP/1.1, a request whose reused connection closed unanswered goes once more, and is no failure")
    func http1ClosedBeforeAnswering() throws {
        let (http1, client, own) = try http1Service(retries: 0)
        defer { withExtendedLifetime(own) { http1.stop() } }
        let results = client.deliver([
            try job(0, http1.endpoint("ok"), "a"), try job(1, http1.endpoint("dropreused"), "b"),
        ])
        #expect(results.map(\.status) == [.sent, .sent], "\(results)")
        #expect(results[1].attempts == 1, "the second send on a fresh connection is not an attempt of its own")
        let requests = http1.requests()
        #expect(requests.filter { $0["dropped"] as? Bool == true }.count == 1)
        #expect(requests.filter { $0["status"] as? Int == 201 }.count == 2)
    }

    @Test("over HTTP/1.1, a fresh connection closed unanswered is a failure, not sent again: the service got it once")
    func http1FreshCloseNotRepeated() throws {
        let (http1, client, own) = try http1Service(retries: 0)
        defer { withExtendedLifetime(own) { http1.stop() } }
        let results = client.deliver([try job(0, http1.endpoint("dropfresh"), "a")])
        #expect(results[0].status == .failed && results[0].transient, "\(results[0])")
        #expect(http1.requests().filter { $0["dropped"] as? Bool == true }.count == 1, "sent once")
    }

    @Test("a batch naming more origins than are served at once still answers every job, in order")
    func manyOrigins() throws {
        // Ports nobody listens on: each origin fails at once (connection refused), on its own thread.
        let endpoints = (0..<(WebPushClient.concurrentOrigins + 8)).map { "https://127.0.0.1:\(1 + $0)/push/ok/x" }
        let jobs = try endpoints.enumerated().map { try job($0.offset, $0.element, "a") }
        let results = try client(retries: 0).deliver(jobs + [try job(99, service.endpoint("ok"), "b")])
        #expect(results.map(\.line) == Array(0..<endpoints.count) + [99])
        #expect(results.dropLast().allSatisfy { $0.status == .failed })
        #expect(results.last?.status == .sent)
    }

    @Test("on the calling thread: every job answered in order, origin after origin, and none begun once cancelled")
    func onThisThread() throws {
        let jobs = [
            try job(0, service.endpoint("ok"), "a"), try job(1, "https://127.0.0.1:1/push/ok/x", "b"),
            try job(2, service.endpoint("gone"), "c"),
        ]
        let results = try client(retries: 0).deliverOnThisThread(jobs)
        #expect(results.map(\.line) == [0, 1, 2])
        #expect(results.map(\.status) == [.sent, .failed, .gone])
        let cancelled = try client(retries: 0).deliverOnThisThread(jobs, isCancelled: { true })
        #expect(cancelled.allSatisfy { $0.status == .failed && $0.transient && $0.attempts == 0 }, "\(cancelled)")
        #expect(service.requests().count == 2, "nothing sent once cancelled")
    }

    @Test("local destinations are refused unless allowed, and hosts outside an allow-list are never contacted")
    func destinations() throws {
        let local = try WebPushClient(vapid: vapid, caFile: service.certificate, answerTimeout: .seconds(5), retries: 1)
        let refused = local.deliver([try job(0, service.endpoint("ok"), "a")])
        #expect(refused[0].status == .failed)
        #expect(!refused[0].transient, "a local destination stays refused: not worth a retry")
        #expect(refused[0].attempts == 1 && refused[0].transportFailure == .localDestination)
        #expect(refused[0].reason?.contains("resolves only to local addresses") == true, "\(refused[0].reason ?? "")")
        let listed = try client(allowedHosts: ["fcm.googleapis.com"]).deliver([try job(0, service.endpoint("ok"), "b")])
        #expect(listed[0].status == .failed)
        #expect(listed[0].reason == "127.0.0.1 is not one of the allowed push services")
        #expect(listed[0].transportFailure == .notAllowed)
        #expect(service.requests().isEmpty)
    }

    @Test(
        "the allow-list takes names and *.domain entries: Edge's notify.windows.com hosts match, the domain alone does not"
    )
    func allowList() throws {
        let client = try client(allowedHosts: ["fcm.googleapis.com", "*.notify.windows.com"])
        #expect(client.isAllowed(host: "FCM.googleapis.com"))
        #expect(client.isAllowed(host: "wns2-par02p.notify.windows.com"))
        #expect(client.isAllowed(host: "a.b.notify.windows.com"))
        #expect(!client.isAllowed(host: "notify.windows.com"))
        #expect(!client.isAllowed(host: "evilnotify.windows.com"))
        #expect(!client.isAllowed(host: "fcm.googleapis.com.evil.example"))
        #expect(client.refusal(forEndpoint: "https://wns2-par02p.notify.windows.com/w/?token=x") == nil)
    }

    @Test("jobs refuse what RFC 8030 forbids: a topic over 32 characters or outside base64url, a TTL over 28 days")
    func jobChecks() throws {
        let endpoint = service.endpoint("ok")
        #expect(throws: DeliveryError.self) { try job(0, endpoint, "a", topic: String(repeating: "a", count: 33)) }
        #expect(throws: DeliveryError.self) { try job(0, endpoint, "a", topic: "has space") }
        #expect(throws: DeliveryError.self) {
            try WebPushJob(line: 0, endpoint: endpoint, body: [], ttl: WebPushJob.maximumTTL + 1)
        }
        #expect(throws: DeliveryError.self) { try WebPushJob(line: 0, endpoint: "http://x/y", body: [], ttl: 0) }
        #expect(WebPushAnswer.seconds("120") == 120)
        #expect(WebPushAnswer.seconds("Wed, 21 Oct 2015 07:28:00 GMT") == nil)
    }
}
