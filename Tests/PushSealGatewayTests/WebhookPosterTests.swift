import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The webhook poster against ordinary receivers (gateway-v1.md, "Webhooks"): Python's stock
/// `http.server`, which answers HTTP/1.0 and closes after every answer, and a receiver that
/// closes kept-alive connections left idle, as Node's does. Neither may cost a failed attempt.
@Suite("webhook poster against ordinary receivers", .serialized)
struct WebhookPosterTests {
    let directory = TemporaryDirectory()

    /// A poster to `receiver`'s `script` URL, signing with a secret the receiver knows.
    func poster(_ receiver: WebhookReceiver, secret: String, script: String = "ok") throws -> WebhookPoster {
        let file = try directory.write("whsec", secret + "\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let settings = try WebhookSettings.list(
            JSONParser.parse(
                """
                [{"name": "backend", "url": "\(receiver.url(script))", "secret_files": ["\(file)"],
                  "allow_local_destinations": true, "ca_file": "\(receiver.certificate)"}]
                """), at: JSONPath.root, resolve: { $0 })
        return WebhookPoster(settings[0], signer: try WebhookSigner(secretFiles: [file]))
    }

    /// Posts `count` events, `spacing` seconds apart; the failures' reasons.
    func post(_ count: Int, spacedBy spacing: Double, with poster: inout WebhookPoster) -> [String] {
        var failures: [String] = []
        for index in 0..<count {
            let body = Array(#"{"id":"msg_\#(index)","type":"delivery.sent"}"#.utf8)
            if case .failed(let reason, _) = poster.post(id: "msg_\(index)", body: body) { failures.append(reason) }
            if spacing > 0 { Thread.sleep(forTimeInterval: spacing) }
        }
        return failures
    }

    @Test("Python's stock http.server (HTTP/1.0, closing after each answer): 50 of 50 events, no failed attempt")
    func stockHTTPServer() throws {
        let secret = WebhookSigner.newSecret()
        let receiverDirectory = TemporaryDirectory()
        let receiver = try WebhookReceiver(secrets: [secret], connections: .stockHTTP10, in: receiverDirectory)
        defer { receiver.stop() }
        var poster = try poster(receiver, secret: secret)
        let failures = post(50, spacedBy: 0.02, with: &poster)
        #expect(failures.isEmpty, "\(failures.count) failed: \(failures.prefix(3))")
        let requests = receiver.requests()
        #expect(requests.count == 50 && requests.allSatisfy { ($0["verified"] as? [Int]) == [0] })
    }

    @Test("a receiver closing connections idle for 0.3 s: 50 of 50 events spaced past it, no failed attempt")
    func idleTimeout() throws {
        let secret = WebhookSigner.newSecret()
        let receiverDirectory = TemporaryDirectory()
        let receiver = try WebhookReceiver(secrets: [secret], connections: .idleTimeout(0.3), in: receiverDirectory)
        defer { receiver.stop() }
        var poster = try poster(receiver, secret: secret)
        let failures = post(50, spacedBy: 0.35, with: &poster)
        #expect(failures.isEmpty, "\(failures.count) failed: \(failures.prefix(3))")
        #expect(receiver.requests().count == 50)
    }

    @Test("a 200 whose body runs to 50 MB is read to 16 KiB, counts as delivered, and the next event is sent")
    func answerBounded() throws {
        let secret = WebhookSigner.newSecret()
        let receiverDirectory = TemporaryDirectory()
        let receiver = try WebhookReceiver(secrets: [secret], in: receiverDirectory)
        defer { receiver.stop() }
        var huge = try poster(receiver, secret: secret, script: "huge")
        let started = ContinuousClock.now
        let failures = post(3, spacedBy: 0, with: &huge)
        #expect(failures.isEmpty, "\(failures)")
        #expect(ContinuousClock.now - started < .seconds(5), "150 MB were not read")
        #expect(receiver.requests().count == 3)
    }

    @Test(
        "a reused connection closed after part of the answer's status line: the request is not sent again, the attempt fails"
    )
    func partialAnswerNotResent() throws {
        let secret = WebhookSigner.newSecret()
        let receiverDirectory = TemporaryDirectory()
        let receiver = try WebhookReceiver(secrets: [secret], in: receiverDirectory)
        defer { receiver.stop() }
        var poster = try poster(receiver, secret: secret, script: "partial")
        let failures = post(2, spacedBy: 0, with: &poster)
        #expect(failures.count == 1, "the second, answered in part, failed: \(failures)")
        let second = receiver.requests().filter { ($0["body"] as? [String: Any])?["id"] as? String == "msg_1" }
        #expect(second.count == 1, "the receiver may have acted on it: sent once, \(second.count) times")
    }
}
