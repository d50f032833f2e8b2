import Foundation
import PushSealCore
import PushSealPrimitives
import PushSealTestSupport
import Testing

@Suite("pushseal keys")
struct KeysCommandTests {
    @Test(
        "generate writes a 0600 private JWK, never overwrites, and public prints its public half",
        arguments: ["x25519", "p256", "xchacha"])
    func generate(_ suite: String) throws {
        let temporary = TemporaryDirectory()
        let written = try CLIRunner.run(["keys", "generate", "--suite", suite, "--out", "k.jwk"], in: temporary.path)
        #expect(written.status == 0)
        #expect(written.output.isEmpty, "no key on standard output when --out is given")
        let mode = try FileManager.default.attributesOfItem(atPath: temporary.file("k.jwk"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let key = try PrivateKey(jwk: Array(try Data(contentsOf: URL(fileURLWithPath: temporary.file("k.jwk")))))
        #expect(key.suite.shortName == suite)
        let again = try CLIRunner.run(["keys", "generate", "--suite", suite, "--out", "k.jwk"], in: temporary.path)
        #expect(again.status == 2)
        #expect(again.errors.contains("k.jwk") && again.errors.contains("never overwritten"))

        let publicHalf = try CLIRunner.run(["keys", "public", "k.jwk"], in: temporary.path)
        if suite == "xchacha" {
            #expect(publicHalf.status == 2)
            #expect(publicHalf.errors.contains("shared"))
        } else {
            #expect(publicHalf.status == 0)
            let jwk = try #require(
                try JSONParser.parse(publicHalf.output.trimmingCharacters(in: .newlines)).objectValue)
            #expect(jwk["d"] == nil && jwk["kid"]?.stringValue == key.kid)
        }
        let serverKey = try CLIRunner.run(["keys", "public", "--application-server-key", "k.jwk"], in: temporary.path)
        if suite == "p256" {
            let point = Base64URL.decode(serverKey.output.trimmingCharacters(in: .newlines))
            #expect(serverKey.status == 0 && point?.count == 65 && point?.first == 0x04, "\(serverKey.output)")
        } else {
            #expect(serverKey.status == 2, "only a P-256 key is an applicationServerKey: \(serverKey.errors)")
        }
    }

    @Test("generate to standard output, and a given kid is kept")
    func generateToOutput() throws {
        let result = try CLIRunner.run(["keys", "generate", "--suite", "x25519", "--kid", "device-1"])
        #expect(result.status == 0)
        let key = try PrivateKey(jwk: Array(result.output.utf8))
        #expect(key.kid == "device-1")
    }

    @Test("the store commands, their refusals and a listing with no key material")
    func store() throws {
        let temporary = TemporaryDirectory()
        func run(_ arguments: [String], input: String = "") throws -> CLIRunner.Result {
            try CLIRunner.run(arguments, input: input, in: temporary.path)
        }
        #expect(try run(["keys", "init", "--store", "s"]).status == 0)
        #expect(try run(["keys", "init", "--store", "s"]).output.contains("\"created\":false"))
        try temporary.write("full/file", "x")
        let foreign = try run(["keys", "init", "--store", "full"])
        #expect(foreign.status == 2 && foreign.errors.contains("not a key store"))

        let rotated = try run(["keys", "rotate", "--store", "s", "--suite", "p256"])
        #expect(rotated.status == 0)
        let devicePublic = try #require(
            try JSONParser.parse(rotated.output.trimmingCharacters(in: .newlines)).objectValue)
        #expect(devicePublic["d"] == nil && devicePublic["kty"] == .string("EC"))
        let kid = try #require(devicePublic["kid"]?.stringValue)

        let sender = try run(["keys", "generate", "--suite", "p256"]).output
        let senderPrivate = try run(["keys", "import", "--store", "s", "--sender"], input: sender)
        #expect(senderPrivate.status == 2 && senderPrivate.errors.contains("public half"))
        let senderPublic = try run(["keys", "public"], input: sender).output
        let trusted = try run(["keys", "import", "--store", "s", "--sender"], input: senderPublic)
        #expect(trusted.status == 0)
        // The very same key again, as a setup script run twice does: nothing changes.
        let keysFile = temporary.file("s/keys.json")
        let before = try Data(contentsOf: URL(fileURLWithPath: keysFile))
        let again = try run(["keys", "import", "--store", "s", "--sender"], input: senderPublic)
        #expect(again.status == 0 && again.output == trusted.output, "\(again.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: keysFile)) == before)
        // Another key under a kid the store holds is refused, as a sender's or as the device's.
        let otherSender = try run(["keys", "public"], input: try run(["keys", "generate", "--suite", "p256"]).output)
        let senderKid = try #require(try JSONParser.parse(senderPublic).objectValue?["kid"]?.stringValue)
        for taken in [senderKid, kid] {
            let impostor = otherSender.output.replacing(#/"kid":"[^"]*"/#, with: #""kid":"\#(taken)""#)
            let refused = try run(["keys", "import", "--store", "s", "--sender"], input: impostor)
            #expect(refused.status == 2 && refused.errors.contains("kids are unique"), "\(taken): \(refused.errors)")
        }
        let device2 = try run(["keys", "generate", "--suite", "x25519"]).output
        let imported = try run(["keys", "import", "--store", "s"], input: device2)
        #expect(imported.status == 0 && imported.output.contains("\"role\":\"device\""))
        #expect(try run(["keys", "import", "--store", "s"], input: "{\"kty\":\"OKP\"}").status == 2)
        let lowOrder = #"{"kty":"OKP","crv":"X25519","x":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","kid":"weak"}"#
        let weakSender = try run(["keys", "import", "--store", "s", "--sender"], input: lowOrder)
        #expect(weakSender.status == 2 && weakSender.errors.contains("low-order"), "\(weakSender.errors)")
        try temporary.write("weak.jwk", lowOrder)
        let weakRecipient = try run(["encrypt", "--to", "weak.jwk"], input: #"{"aps":{"alert":"x"}}"#)
        #expect(weakRecipient.status == 2 && weakRecipient.errors.contains("\"weak\""), "\(weakRecipient.errors)")

        let list = try run(["keys", "list", "--store", "s"])
        #expect(list.status == 0)
        #expect(list.lines.count == 3)
        for line in list.lines {
            let entry = try #require(try JSONParser.parse(line).objectValue)
            #expect(entry.members.map(\.name) == ["kid", "suite", "role", "current", "created"])
        }
        let retireCurrent = try run(["keys", "retire", "--store", "s", "--kid", kid])
        #expect(retireCurrent.status == 2 && retireCurrent.errors.contains("rotate first"))

        let secrets = try String(contentsOfFile: temporary.file("s/keys.json"), encoding: .utf8)
            .components(separatedBy: "\"d\":\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(secrets.count == 2)
        for secret in secrets {
            #expect(
                !list.output.contains(secret) && !rotated.output.contains(secret) && !imported.output.contains(secret))
        }

        chmod(temporary.file("s/keys.json"), 0o640)
        let refused = try run(["keys", "list", "--store", "s"])
        #expect(refused.status == 2)
        #expect(refused.errors.contains("keys.json") && refused.errors.contains("chmod 600"))
    }
}
