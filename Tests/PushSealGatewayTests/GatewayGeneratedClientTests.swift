import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The Python client that `openapi-python-client` (PyPI, `make python-client`) generates from
/// `docs/gateway-v1.openapi.json` as a package (`pushseal-gateway-client`, a pyproject.toml) and
/// pip installs into its virtual environment, driving a running gateway as a backend would
/// (`interop/python/gateway_client_exercise.py`): register, push, follow the push, page through a
/// user's devices, read a 409 through the generated error model; and the webhook that push causes,
/// verified by PyPI's `standardwebhooks`. A document a generator misreads, or an answer the
/// generated models cannot parse, fails here.
@Suite("pushseal-gateway through its generated Python client", .serialized)
struct GatewayGeneratedClientTests {
    static let root = TestVectors.packageRoot
    static let python = root.appendingPathComponent(".build/client-venv/bin/python")
    static let client = root.appendingPathComponent(".build/gateway-client-python")

    @Test("register, push, status, pages and errors through the generated client; the push's webhook verifies")
    func generatedClient() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path),
            FileManager.default.fileExists(atPath: Self.client.appendingPathComponent(".installed").path)
        else {
            Issue.record("the generated client is not installed: run make python-client (make test does)")
            return
        }
        let hooked = try GatewayWebhookTests.Hooked(extra: #", "events": ["delivery.sent"]"#)
        let (world, receiver) = (hooked.world, hooked.receiver)
        defer { withExtendedLifetime(hooked) {} }  // its directories hold the receiver's log
        _ = try CLIRunner.run(["keys", "init", "--store", "store-phone"], in: world.directory.path)
        let rotated = try CLIRunner.run(
            ["keys", "rotate", "--store", "store-phone", "--suite", "x25519"], in: world.directory.path)
        let keyFile = try world.directory.write("phone-key.json", rotated.output)
        let script = Self.root.appendingPathComponent("interop/python/gateway_client_exercise.py").path
        let run = try CLIRunner.run(
            executable: Self.python,
            [
                script, "--url", "http://127.0.0.1:\(world.gateway.port)",
                "--token", world.adminToken, "--device-key", keyFile, "--device-token",
                GatewayWorld.deviceToken("00aa", 1),
            ], input: Data(), in: world.directory.path)
        #expect(run.status == 0, "\(run.errors.suffix(3_000))")
        let seen = try #require(try JSONParser.parse(run.output.trimmingCharacters(in: .newlines)).objectValue)
        #expect(
            seen["package"]?.stringValue?.contains("/site-packages/pushseal_gateway_client/") == true,
            "imported as an installed package: \(seen["package"]?.stringValue ?? "")")
        #expect(seen["register_status"] == .number(JSONNumber(201)) && seen["registered_id"] == .string("phone"))
        #expect(seen["deliveries"] == .number(JSONNumber(1)))
        #expect(seen["delivery_statuses"] == .array([.string("sent")]) && seen["sent_count"] == .number(JSONNumber(1)))
        #expect(seen["user_devices"] == .array([.string("phone")]))
        #expect(seen["conflict_status"] == .number(JSONNumber(409)))
        #expect(seen["conflict_code"] == .string("idempotency-conflict"))
        let push = try #require(seen["push_id"]?.stringValue)
        #expect(try world.store.push(id: push, in: .default)?.deliveries.first?.status == .sent, "the gateway agrees")
        #expect(
            world.eventually {
                GatewayWebhookTests.events(receiver).contains {
                    ($0["data"] as? [String: Any])?["push"] as? String == push
                }
            }, "the push's delivery.sent reached the receiver")
        #expect(receiver.requests().allSatisfy { $0["verified"] as? [Int] == [0] })
    }
}
