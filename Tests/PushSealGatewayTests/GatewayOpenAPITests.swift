import Foundation
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// `docs/gateway-v1.openapi.json` against the running gateway, with schemathesis (PyPI, `make
/// schemathesis`): every operation, generated inputs valid and invalid, no 5xx, every response
/// valid against the document, authentication enforced, undeclared methods answered 405 with
/// `Allow`. `positive_data_acceptance` is left out: a schema-valid request may still be refused
/// for what no static schema can say (a topic the configuration does not list, a key that is not
/// a point of its curve, a payload that breaks Apple's rules, an endpoint no push service serves),
/// with 400 or 422 and a path. The gateway has `webpush`, so that both kinds of device are
/// registered, shown and pushed to.
@Suite("pushseal-gateway against its OpenAPI document", .serialized)
struct GatewayOpenAPITests {
    static let schemathesis = TestVectors.packageRoot.appendingPathComponent(
        ".build/schemathesis-venv/bin/schemathesis")

    @Test("schemathesis finds no failure", arguments: GatewayBackend.allCases)
    func schemathesisRun(_ backend: GatewayBackend) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.schemathesis.path) else {
            Issue.record("schemathesis is not installed: run make schemathesis (make test does)")
            return
        }
        let world = try GatewayWorld(backend, webPush: true)
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        try world.registerSubscription("browser", user: "u1", service: 0)
        let document = TestVectors.packageRoot.appendingPathComponent("docs/gateway-v1.openapi.json").path
        let run = try CLIRunner.run(
            executable: Self.schemathesis,
            [
                "run", document, "--url", "http://127.0.0.1:\(world.gateway.port)", "--header",
                "Authorization: Bearer \(world.adminToken)", "--checks", "all", "--exclude-checks",
                "positive_data_acceptance", "--max-examples", "60", "--seed", "20261201", "--no-color",
            ], input: Data(), in: world.directory.path, environment: ["SCHEMATHESIS_HOOKS": ""])
        let summary = run.output.split(separator: "\n").filter { $0.contains("generated") || $0.contains("failures") }
        print("schemathesis: \(summary.joined(separator: "; "))")
        #expect(run.status == 0, "\(run.output.suffix(4_000))")
        #expect(run.output.contains("Tested: 12"), "every operation of the document was tested")
    }
}
