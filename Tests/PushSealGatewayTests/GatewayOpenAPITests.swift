import Foundation
import PushSealCore
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

    /// What `openapi_examples.py --events` finds wrong with webhook `events` (bodies as a receiver
    /// got them) by the document's webhooks; empty when each fits the schema of its type.
    static func eventProblems(_ events: [[String: Any]]) throws -> String {
        let python = TestVectors.packageRoot.appendingPathComponent(".build/schemathesis-venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            return "the schemathesis environment is missing: run make schemathesis (make test does)"
        }
        let directory = TemporaryDirectory()
        let file = directory.file("events.json")
        try JSONSerialization.data(withJSONObject: events).write(to: URL(fileURLWithPath: file))
        let run = try CLIRunner.run(
            executable: python,
            [
                PythonPeer.directory.appendingPathComponent("openapi_examples.py").path,
                TestVectors.packageRoot.appendingPathComponent("docs/gateway-v1.openapi.json").path, "--events", file,
            ], input: Data(), in: nil)
        return run.status == 0 && run.output.contains("\(events.count) events checked, 0 problems") ? "" : run.output
    }

    @Test(
        "every operation has a unique operationId and a tag; no response forbids members the gateway may add")
    func generatorReady() throws {
        let path = TestVectors.packageRoot.appendingPathComponent("docs/gateway-v1.openapi.json")
        let document = try #require(try JSONParser.parse(Array(try Data(contentsOf: path))).objectValue)
        let schemas = document["components"]?.objectValue?["schemas"]?.objectValue ?? JSONObject()
        var operationIDs: [String] = []
        var responseSchemas = Set<String>()
        func references(_ value: JSONValue, into names: inout Set<String>) {
            switch value {
            case .object(let object):
                if let target = object["$ref"]?.stringValue, target.hasPrefix("#/components/schemas/") {
                    let name = String(target.dropFirst("#/components/schemas/".count))
                    if names.insert(name).inserted, let schema = schemas[name] { references(schema, into: &names) }
                }
                for member in object.members { references(member.value, into: &names) }
            case .array(let elements): for element in elements { references(element, into: &names) }
            default: break
            }
        }
        func forbidsMembers(_ value: JSONValue) -> Bool {
            switch value {
            case .object(let object):
                object["additionalProperties"] == .bool(false) || object.members.contains { forbidsMembers($0.value) }
            case .array(let elements): elements.contains(where: forbidsMembers)
            default: false
            }
        }
        for (route, item) in (document["paths"]?.objectValue ?? JSONObject()).members {
            for (method, operation) in (item.objectValue ?? JSONObject()).members where method != "parameters" {
                let object = try #require(operation.objectValue)
                let id = try #require(object["operationId"]?.stringValue, "\(method) \(route) has no operationId")
                operationIDs.append(id)
                #expect(object["tags"]?.arrayValue?.isEmpty == false, "\(id) has no tag")
                let responses = try #require(object["responses"])
                #expect(!forbidsMembers(responses), "\(id): an inline response schema forbids added members")
                references(responses, into: &responseSchemas)
            }
        }
        #expect(operationIDs.count == 21 && Set(operationIDs).count == operationIDs.count, "\(operationIDs)")
        // A JWK's members are fixed by its RFC; every other response schema takes added members.
        for name in responseSchemas.subtracting(["PublicJWK"]).sorted() {
            #expect(!forbidsMembers(try #require(schemas[name])), "\(name) forbids members the gateway may add")
        }
    }

    @Test("every inline object a oneOf offers has a title, so that generated clients give its type a name")
    func inlineAlternativesNamed() throws {
        let path = TestVectors.packageRoot.appendingPathComponent("docs/gateway-v1.openapi.json")
        let document = try #require(try JSONParser.parse(Array(try Data(contentsOf: path))).objectValue)
        var unnamed: [String] = []
        func visit(_ value: JSONValue, at location: String) {
            switch value {
            case .object(let object):
                if case .array(let alternatives)? = object["oneOf"] {
                    for (index, alternative) in alternatives.enumerated() {
                        guard let member = alternative.objectValue, member["$ref"] == nil else { continue }
                        if member["title"]?.stringValue == nil { unnamed.append("\(location)/oneOf/\(index)") }
                    }
                }
                for (name, member) in object.members { visit(member, at: "\(location)/\(name)") }
            case .array(let elements):
                for (index, element) in elements.enumerated() { visit(element, at: "\(location)/\(index)") }
            default: break
            }
        }
        visit(.object(document), at: "#")
        #expect(unnamed.isEmpty, "without a title a generator names them Type0, Type1…: \(unnamed)")
    }

    @Test(
        "every JSON request body, every 2xx answer and every webhook has an example, and each example fits its own schema"
    )
    func examples() throws {
        let python = TestVectors.packageRoot.appendingPathComponent(".build/schemathesis-venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("the schemathesis environment is missing: run make schemathesis (make test does)")
            return
        }
        let run = try CLIRunner.run(
            executable: python,
            [
                PythonPeer.directory.appendingPathComponent("openapi_examples.py").path,
                TestVectors.packageRoot.appendingPathComponent("docs/gateway-v1.openapi.json").path,
            ], input: Data(), in: nil)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("0 problems"), "\(run.output)")
    }

    @Test("schemathesis finds no failure", arguments: GatewayBackend.allCases)
    func schemathesisRun(_ backend: GatewayBackend) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.schemathesis.path) else {
            Issue.record("schemathesis is not installed: run make schemathesis (make test does)")
            return
        }
        // Only the mock push services' host: the document's examples name real push services,
        // which this machine cannot reach, and a test push to one waits its 5 s for nothing.
        let world = try GatewayWorld(
            backend,
            settings:
                #""relay": {"public_url": "https://relay.example"}, "receipts": {"url": "https://push.example.com"}"#,
            webPush: true,
            pushServiceHosts: ["127.0.0.1"])
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        try world.registerSubscription("browser", user: "u1", service: 0)
        let document = TestVectors.packageRoot.appendingPathComponent("docs/gateway-v1.openapi.json").path
        let run = try CLIRunner.run(
            executable: Self.schemathesis,
            [
                "run", document, "--url", "http://127.0.0.1:\(world.gateway.port)", "--header",
                "Authorization: Bearer \(world.adminToken)", "--checks", "all", "--exclude-checks",
                "positive_data_acceptance", "--max-examples", "60", "--seed", "20261201", "--no-color",
            ], input: Data(), in: world.directory.path, environment: ["SCHEMATHESIS_HOOKS": ""], timeout: 400)
        let summary = run.output.split(separator: "\n").filter { $0.contains("generated") || $0.contains("failures") }
        print("schemathesis: \(summary.joined(separator: "; "))")
        #expect(run.status == 0, "\(run.output.suffix(4_000))")
        #expect(run.output.contains("Tested: 21"), "every operation of the document was tested")
    }
}
