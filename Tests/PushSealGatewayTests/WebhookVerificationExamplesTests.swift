import Foundation
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The webhook verification a backend copies (`examples/backend/verify_webhook.py` and
/// `verify-webhook.mjs`, gateway-v1.md "Webhooks"), run with `python3` and `node` against messages
/// the gateway's own signer signed: a good one verifies, under either secret of a rotation; a
/// changed body, another secret and an old timestamp are refused.
@Suite("webhook verification examples")
struct WebhookVerificationExamplesTests {
    static let examples = TestVectors.packageRoot.appendingPathComponent("examples/backend")

    /// The two ways of running an example: its interpreter and its file.
    static let runners: [(name: String, interpreter: String, script: String)] = [
        ("python", "/usr/bin/python3", "verify_webhook.py"), ("node", "/usr/bin/node", "verify-webhook.mjs"),
    ]

    @Test("a signed message verifies, under either secret of a rotation; tampering, another secret and age are refused")
    func verification() throws {
        let directory = TemporaryDirectory()
        func secretFile(_ name: String) throws -> String {
            let path = try directory.write(name, WebhookSigner.newSecret() + "\n")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            return path
        }
        let (old, new, stranger) = (try secretFile("old"), try secretFile("new"), try secretFile("stranger"))
        let signer = try WebhookSigner(secretFiles: [old, new])
        let body = Array(#"{"id":"msg_1","type":"delivery.sent","data":{"push":"p"}}"#.utf8)
        let bodyFile = try directory.write("body.json", String(decoding: body, as: UTF8.self))
        let tamperedFile = try directory.write("tampered.json", #"{"id":"msg_1","type":"delivery.failed"}"#)
        let now = Int64(Date().timeIntervalSince1970)
        for runner in Self.runners {
            guard FileManager.default.isExecutableFile(atPath: runner.interpreter) else {
                Issue.record("\(runner.interpreter) is not installed (make test installs it)")
                continue
            }
            /// The example's status and words for the message signed at `timestamp` over `body`,
            /// received as `received`'s bytes, checked with `secret`.
            func verify(secret: String, timestamp: Int64, received: String) throws -> (Int32, String) {
                let run = try CLIRunner.run(
                    executable: URL(fileURLWithPath: runner.interpreter),
                    [
                        Self.examples.appendingPathComponent(runner.script).path, "--secret-file", secret, "--id",
                        "msg_1", "--timestamp", "\(timestamp)", "--signature",
                        signer.signature(id: "msg_1", timestamp: timestamp, body: body), received,
                    ], input: Data(), in: nil)
                return (run.status, run.output.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            #expect(try verify(secret: old, timestamp: now, received: bodyFile) == (0, "verified"), "\(runner.name)")
            #expect(try verify(secret: new, timestamp: now, received: bodyFile) == (0, "verified"), "\(runner.name)")
            #expect(try verify(secret: stranger, timestamp: now, received: bodyFile).0 == 1, "\(runner.name)")
            #expect(try verify(secret: old, timestamp: now, received: tamperedFile).0 == 1, "\(runner.name)")
            #expect(try verify(secret: old, timestamp: now - 600, received: bodyFile).0 == 1, "\(runner.name)")
        }
    }
}
