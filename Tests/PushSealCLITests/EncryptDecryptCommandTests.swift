import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

/// A device store and a server's keys made with the CLI itself.
struct CLIWorld {
    let directory = TemporaryDirectory()

    init(suite: String = "x25519", pinSender: Bool = true) throws {
        _ = try run(["keys", "init", "--store", "store"])
        try directory.write("device.jwk", try run(["keys", "rotate", "--store", "store", "--suite", suite]).output)
        if suite != "xchacha" {
            _ = try run(["keys", "generate", "--suite", suite, "--out", "sender.jwk"])
            if pinSender {
                let senderPublic = try run(["keys", "public", "sender.jwk"]).output
                _ = try run(["keys", "import", "--store", "store", "--sender"], input: senderPublic)
            }
        }
    }

    @discardableResult
    func run(_ arguments: [String], input: String = "", environment: [String: String] = [:]) throws
        -> CLIRunner.Result
    {
        try CLIRunner.run(arguments, input: Data(input.utf8), in: directory.path, environment: environment)
    }

    /// The device's public JWK as one line, for a JSON Lines job's `"to"`.
    func devicePublicJWK() throws -> String {
        try String(contentsOfFile: directory.file("device.jwk"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func encrypt(_ payload: String, _ extra: [String] = []) throws -> CLIRunner.Result {
        let sender =
            FileManager.default.fileExists(atPath: directory.file("sender.jwk")) ? ["--sender", "sender.jwk"] : []
        return try run(["encrypt", "--to", "device.jwk"] + sender + extra, input: payload)
    }
}

let order =
    #"{"aps":{"alert":{"title":"Order #1042","body":"Shipped today"},"badge":1},"type":"order","event_id":"evt-9"}"#

@Suite("pushseal encrypt and decrypt")
struct EncryptDecryptCommandTests {
    @Test("the CLI seals and opens for every suite", arguments: ["x25519", "p256", "xchacha"])
    func roundTrip(_ suite: String) throws {
        let world = try CLIWorld(suite: suite)
        let sealed = try world.encrypt(order)
        #expect(sealed.status == 0)
        #expect(!sealed.output.contains("Order #1042"))
        let opened = try world.run(["decrypt", "--store", "store"], input: sealed.output)
        #expect(opened.status == 0)
        let result = try #require(try JSONParser.parse(opened.output.trimmingCharacters(in: .newlines)).objectValue)
        #expect(result["status"] == .string("decrypted"))
        #expect(result["mode"] == .string(suite == "xchacha" ? "base" : "auth"))
        #expect(result["notification"]?.objectValue?["title"] == .string("Order #1042"))
        #expect(result["notification"]?.objectValue?["userInfo"] == (try JSONParser.parse(order)))
    }

    @Test("exit statuses: 2 for unreadable input, 1 for a payload Apple would refuse or that does not fit")
    func exitStatuses() throws {
        let world = try CLIWorld()
        let notJSON = try world.encrypt("{oops")
        #expect(notJSON.status == 2 && notJSON.errors.contains("not JSON"))
        let invalid = try world.encrypt(#"{"aps":{"interruption-level":"loud"}}"#)
        #expect(invalid.status == 1 && invalid.errors.contains("$.aps['interruption-level']"))
        let enc = try world.encrypt(#"{"aps":{},"enc":"x"}"#)
        #expect(enc.status == 1 && enc.errors.contains("$.enc"))
        let big = #"{"aps":{"alert":{"body":"\#(String(repeating: "x", count: 4_000))"}}}"#
        let tooLarge = try world.encrypt(big)
        #expect(tooLarge.status == 1 && tooLarge.errors.contains("4096") && tooLarge.errors.contains("bytes, over"))
        let truncated = try world.encrypt(big, ["--truncate"])
        #expect(truncated.status == 0 && truncated.output.utf8.count <= 4097)
        let missingKey = try world.run(["encrypt", "--to", "absent.jwk"], input: order)
        #expect(missingKey.status == 2 && missingKey.errors.contains("absent.jwk"))
        try world.directory.write("bad.jwk", #"{"kty":"OKP","crv":"X25519","x":"short"}"#)
        let badKey = try world.run(["encrypt", "--to", "bad.jwk"], input: order)
        #expect(badKey.status == 2 && badKey.errors.contains("bad.jwk") && badKey.errors.contains("\"x\""))
    }

    @Test("--apns-request adds the provider headers")
    func apnsRequest() throws {
        let world = try CLIWorld()
        let result = try world.encrypt(
            order, ["--apns-request", "--topic", "com.example.app", "--collapse-id", "o-1042"])
        #expect(result.status == 0)
        let request = try #require(try JSONParser.parse(result.output.trimmingCharacters(in: .newlines)).objectValue)
        #expect(
            request["headers"]
                == (try JSONParser.parse(
                    #"{"apns-push-type":"alert","apns-topic":"com.example.app","apns-priority":"10","apns-collapse-id":"o-1042"}"#
                )))
        #expect(request["payload"]?.objectValue?["enc"] != nil)
    }

    @Test("decrypt: a tampered payload degrades with exit 1; inspect reads the header without a key")
    func degradeAndInspect() throws {
        let world = try CLIWorld()
        let sealed = try world.encrypt(order).output
        let tampered = sealed.replacingOccurrences(of: "\"}", with: "A\"}")
        let degraded = try world.run(["decrypt", "--store", "store"], input: tampered)
        #expect(degraded.status == 1)
        #expect(degraded.output.contains("\"status\":\"degraded\""))
        #expect(degraded.output.contains("\"title\":\"New notification\""))
        let inspected = try world.run(["inspect"], input: sealed)
        #expect(inspected.status == 0)
        let header = try #require(try JSONParser.parse(inspected.output.trimmingCharacters(in: .newlines)).objectValue)
        #expect(
            header.members.map(\.name) == [
                "version", "suite", "mode", "kid", "skid", "envelopeBytes", "payloadBytes", "limit",
            ])
        #expect(header["payloadBytes"] == .number(JSONNumber(sealed.utf8.count - 1)))
        #expect(try world.run(["inspect"], input: #"{"aps":{}}"#).output.contains("\"sealed\":false"))
        #expect(
            try world.run(["inspect"], input: #"{"enc":"AgEA"}"#).output.contains("\"error\":\"unsupported-version\""))
        #expect(try world.run(["inspect"], input: "nope").status == 2)
    }

    @Test("an .apns file from simctl decrypts; its Simulator Target Bundle member is not part of the push")
    func apnsFile() throws {
        let world = try CLIWorld()
        let sealed = try world.encrypt(order).output.trimmingCharacters(in: .newlines)
        let apns = "{\"Simulator Target Bundle\":\"com.example.app\"," + sealed.dropFirst()
        try world.directory.write("capture.apns", apns)
        let result = try world.run(["decrypt", "--store", "store", "capture.apns"])
        #expect(result.status == 0 && result.output.contains("\"status\":\"decrypted\""))
    }

    @Test("decrypt --json-lines keeps going past garbage, a 1 MB line, bad UTF-8 and wrong types")
    func decryptBatch() throws {
        let world = try CLIWorld()
        let sealed = try world.encrypt(order).output.trimmingCharacters(in: .newlines)
        var input = Data()
        let lines: [Data] = [
            Data(sealed.utf8), Data("not json".utf8), Data(), Data(String(repeating: "z", count: 1_000_000).utf8),
            Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]), Data("[1,2]".utf8),
            Data(#"{"aps":{"alert":"plain"}}"#.utf8), Data(#"{"enc":{"x":1}}"#.utf8), Data(#"{"enc":"@@@"}"#.utf8),
            Data(sealed.utf8),
        ]
        for line in lines { input.append(line); input.append(0x0A) }
        let result = try CLIRunner.run(
            ["decrypt", "--store", "store", "--json-lines"], input: input, in: world.directory.path)
        #expect(result.status == 1)
        let outputs = try result.lines.map { try #require(try JSONParser.parse($0).objectValue) }
        #expect(outputs.count == 9, "one output per non-blank line")
        #expect(outputs[0]["status"] == .string("decrypted"))
        #expect(outputs[1]["line"] == .number(JSONNumber(2)) && outputs[1]["error"] != nil)
        #expect(outputs[2]["line"] == .number(JSONNumber(4)))
        #expect(outputs[3]["line"] == .number(JSONNumber(5)))
        #expect(outputs[4]["line"] == .number(JSONNumber(6)))
        #expect(outputs[5]["status"] == .string("plain"))
        #expect(outputs[6]["status"] == .string("plain"))
        #expect(outputs[7]["reason"] == .string("malformed-envelope"))
        #expect(outputs[8]["status"] == .string("decrypted"))
    }

    @Test("a store readable by others: decrypt degrades sealed payloads with key-store-unavailable and says why")
    func refusedStore() throws {
        let world = try CLIWorld()
        let sealed = try world.encrypt(order).output
        chmod(world.directory.file("store/keys.json"), 0o644)
        let result = try world.run(["decrypt", "--store", "store"], input: sealed)
        #expect(result.status == 1)
        #expect(result.output.contains("\"reason\":\"key-store-unavailable\""))
        #expect(result.errors.contains("chmod 600"))
    }

    @Test("--record in two processes at once: each event_id is new exactly once")
    func duplicatesAcrossProcesses() async throws {
        let world = try CLIWorld()
        var batch = ""
        for index in 0..<60 {
            let payload = #"{"aps":{"alert":"n\#(index)"},"event_id":"evt-\#(index)"}"#
            batch += try world.encrypt(payload).output
        }
        let input = batch
        async let first = world.run(["decrypt", "--store", "store", "--record", "--json-lines"], input: input)
        async let second = world.run(["decrypt", "--store", "store", "--record", "--json-lines"], input: input)
        let outputs = try await [first, second]
        let flags = outputs.flatMap(\.lines).map { $0.contains("\"duplicate\":false") }
        #expect(flags.count == 120)
        #expect(flags.filter { $0 }.count == 60)
        #expect(outputs.allSatisfy { $0.status == 0 })
    }

    @Test("no private key material appears in any output or error")
    func noSecretsInOutput() throws {
        let world = try CLIWorld()
        let secrets = try [world.directory.file("store/keys.json"), world.directory.file("sender.jwk")]
            .map { try String(contentsOfFile: $0, encoding: .utf8) }
            .flatMap { $0.components(separatedBy: "\"d\":\"").dropFirst().map { String($0.prefix { $0 != "\"" }) } }
        #expect(secrets.count == 2)
        let sealed = try world.encrypt(order).output
        let outputs = [
            try world.run(["decrypt", "--store", "store", "--record"], input: sealed),
            try world.run(["decrypt", "--store", "store"], input: "{bad"),
            try world.run(["keys", "list", "--store", "store"]),
            try world.run(["encrypt", "--to", "device.jwk", "--sender", "sender.jwk"], input: #"{"aps":5}"#),
            try world.run(["encrypt", "--to", "sender.jwk", "--sender", "device.jwk"], input: order),
            try world.run(["inspect"], input: sealed),
        ]
        for output in outputs {
            for secret in secrets {
                #expect(!output.output.contains(secret) && !output.errors.contains(secret))
            }
        }
    }
}

@Suite("pushseal encrypt and decrypt with a payload contract")
struct ContractCommandTests {
    static let contract = #"""
        {"schema_versions":[1],"routes":{"order":{"id":"uuid","thread-id":"order:{id}","collapse-id":"order:{id}"},"inbox":{}}}
        """#
    static let order = "6b83b22e-7e22-420d-8c8c-921fd6bdcd37"

    @Test("encrypt refuses a payload that breaks the contract, naming the path; fills the templates; adds event_id")
    func serverSide() throws {
        let world = try CLIWorld()
        try world.directory.write("contract.json", Self.contract)
        let contract = ["--contract", "contract.json"]
        let bad = #"{"aps":{"alert":"x"},"type":"order","id":"myapp://evil","event_id":"e","schema_version":1}"#
        let refused = try world.encrypt(bad, contract)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("$.id") && refused.errors.contains("bad-id"), "\(refused.errors)")

        let good = #"{"aps":{"alert":"x"},"type":"order","id":"\#(Self.order)","schema_version":1}"#
        #expect(try world.encrypt(good, contract).errors.contains("missing-event-id"))
        let request = try world.encrypt(
            good, contract + ["--event-id", "auto", "--apns-request", "--topic", "com.example.shop"])
        #expect(request.status == 0, "\(request.errors)")
        #expect(request.output.contains(#""apns-collapse-id":"order:\#(Self.order)""#))

        let sealed = try world.encrypt(good, contract + ["--event-id", "auto"]).output
        let opened = try world.run(["decrypt", "--store", "store", "--contract", "contract.json"], input: sealed)
        let result = try #require(try JSONParser.parse(opened.output.trimmingCharacters(in: .newlines)).objectValue)
        let route = try #require(result["route"]?.objectValue)
        #expect(route["type"] == .string("order") && route["id"] == .string(Self.order))
        #expect(result["notification"]?.objectValue?["threadIdentifier"] == .string("order:\(Self.order)"))
        #expect(route["event_id"]?.stringValue?.count == 36, "event_id added by --event-id auto")
    }

    @Test("the collapse id: a line's own, then --collapse-id, then the route's template (contract-v1.md)")
    func collapseIDPrecedence() throws {
        let world = try CLIWorld()
        try world.directory.write("contract.json", Self.contract)
        let payload = #"{"aps":{"alert":"x"},"type":"order","id":"\#(Self.order)","event_id":"e","schema_version":1}"#
        let request = ["--contract", "contract.json", "--apns-request", "--topic", "com.example.shop"]
        #expect(try world.encrypt(payload, request).output.contains(#""apns-collapse-id":"order:\#(Self.order)""#))
        let flagged = try world.encrypt(payload, request + ["--collapse-id", "flag"])
        #expect(flagged.output.contains(#""apns-collapse-id":"flag""#), "\(flagged.errors)")
        let line = #"{"to":\#(try world.devicePublicJWK()),"payload":\#(payload),"collapse-id":"line"}"#
        let batch = try world.encrypt(line + "\n", request + ["--json-lines", "--collapse-id", "flag"])
        #expect(batch.output.contains(#""apns-collapse-id":"line""#), "\(batch.output)")
    }

    @Test("the contract is checked before Apple's payload rules; --event-id auto needs no contract and fills null")
    func checkOrder() throws {
        let world = try CLIWorld()
        try world.directory.write("contract.json", Self.contract)
        let refused = try world.encrypt(
            #"{"type":"nope","event_id":"e","schema_version":1}"#, ["--contract", "contract.json"])
        #expect(refused.status == 1 && refused.errors.contains("(unknown-type)") && !refused.errors.contains("$.aps"))
        let sealed = try world.encrypt(#"{"aps":{"alert":"x"},"event_id":null}"#, ["--event-id", "auto"]).output
        let opened = try world.run(["decrypt", "--store", "store"], input: sealed)
        let result = try #require(try JSONParser.parse(opened.output.trimmingCharacters(in: .newlines)).objectValue)
        let eventID = result["notification"]?.objectValue?["userInfo"]?.objectValue?["event_id"]?.stringValue
        #expect(eventID?.count == 36, "\(opened.output)")
    }

    @Test("decrypt --contract reports route-error for content that breaks it, and no route for an unsealed payload")
    func deviceSide() throws {
        let world = try CLIWorld()
        try world.directory.write("contract.json", Self.contract)
        let sealed = try world.encrypt(#"{"aps":{"alert":"x"},"type":"settings","event_id":"e","schema_version":1}"#)
            .output
        let opened = try world.run(["decrypt", "--store", "store", "--contract", "contract.json"], input: sealed)
        #expect(opened.output.contains(#""route-error":"unknown-type""#), "\(opened.output)")
        let plain = try world.run(
            ["decrypt", "--store", "store", "--contract", "contract.json"],
            input: #"{"aps":{"alert":"x"},"type":"inbox","event_id":"e","schema_version":1}"#)
        #expect(!plain.output.contains("route"))
        let badContract = try world.run(
            ["decrypt", "--store", "store", "--contract", "store/keys.json"], input: sealed)
        #expect(badContract.status == 2 && badContract.errors.contains("bad contract"))
    }

    @Test("--contract with --media, and a job line's \"media\": the descriptor is typed, not refused as a link")
    func contractWithMedia() throws {
        let world = try CLIWorld()
        try world.directory.write("contract.json", Self.contract)
        try Data(MediaSamples.media(.png, length: 2_000)).write(to: URL(fileURLWithPath: world.directory.file("a.png")))
        let descriptor = try world.run([
            "media", "seal", "a.png", "--out", "a.psm", "--url", "https://cdn.example.com/a.psm",
        ]).output
        try world.directory.write("a.json", descriptor)
        let payload = #"{"aps":{"alert":"x"},"type":"inbox","event_id":"e","schema_version":1}"#
        let sealed = try world.encrypt(payload, ["--contract", "contract.json", "--media", "a.json"])
        #expect(sealed.status == 0, "\(sealed.errors)")
        let opened = try world.run(["decrypt", "--store", "store"], input: sealed.output)
        #expect(opened.output.contains("https://cdn.example.com/a.psm"), "the descriptor is in the content")

        let to = try world.devicePublicJWK()
        let job = #"{"to":\#(to),"media":\#(descriptor.trimmingCharacters(in: .newlines)),"payload":\#(payload)}"#
        let batch = try world.run(["encrypt", "--json-lines", "--contract", "contract.json"], input: job + "\n")
        #expect(batch.lines.count == 1 && batch.lines[0].contains("\"enc\""), "\(batch.output)")
    }

    @Test(
        "a payload's media that is not a media-v1 descriptor is refused at $.media with invalid-payload, with or without a contract, in a payload or a job line",
        arguments: [[], ["--contract", "contract.json"]])
    func mediaIsADescriptor(_ contract: [String]) throws {
        let world = try CLIWorld()
        try world.directory.write("contract.json", Self.contract)
        let routed = #""type":"inbox","event_id":"e","schema_version":1"#
        let cases: [(media: String, message: String)] = [
            ("5", "$.media must be a media-v1 descriptor object, not a number (invalid-payload)"),
            (#"{"url":"http://x/y"}"#, "$.media is not a media-v1 descriptor: "),
        ]
        for (media, message) in cases {
            let single = try world.encrypt(#"{"aps":{"alert":"hi"},\#(routed),"media":\#(media)}"#, contract)
            #expect(single.status == 1 && single.errors.contains(message), "\(media): \(single.errors)")
            #expect(single.errors.contains("(invalid-payload)"), "\(single.errors)")
            let to = try world.devicePublicJWK()
            let job = #"{"to":\#(to),"media":\#(media),"payload":{"aps":{"alert":"hi"},\#(routed)}}"#
            let batch = try world.run(["encrypt", "--json-lines"] + contract, input: job + "\n")
            #expect(
                batch.lines.count == 1 && batch.lines[0].contains(message)
                    && batch.lines[0].contains("(invalid-payload)"),
                "\(media): \(batch.output)")
        }
    }

    @Test("--json-lines applies the contract to every line, one result per line")
    func batch() throws {
        let world = try CLIWorld()
        try world.directory.write("contract.json", Self.contract)
        let to = try world.devicePublicJWK()
        let lines = [
            #"{"to":\#(to),"payload":{"aps":{"alert":"a"},"type":"inbox","event_id":"1","schema_version":1}}"#,
            #"{"to":\#(to),"payload":{"aps":{"alert":"b"},"type":"inbox","schema_version":1}}"#,
            #"{"to":\#(to),"payload":{"aps":{"alert":"c"},"type":"nowhere","event_id":"3","schema_version":1}}"#,
        ]
        let result = try world.run(
            ["encrypt", "--json-lines", "--contract", "contract.json"], input: lines.joined(separator: "\n") + "\n")
        #expect(result.lines.count == 3)
        #expect(result.lines[0].contains("\"enc\""))
        #expect(result.lines[1].contains("missing-event-id") && result.lines[2].contains("unknown-type"))
    }
}

@Suite("pushseal media", .serialized)
struct MediaCommandTests {
    @Test("media seal prints a descriptor, media open restores the file; HEIC is refused with a hint")
    func sealAndOpen() throws {
        let world = try CLIWorld()
        let photo = MediaSamples.media(.jpeg, length: 150_000)
        try Data(photo).write(to: URL(fileURLWithPath: world.directory.file("photo.jpg")))
        let sealed = try world.run([
            "media", "seal", "photo.jpg", "--out", "photo.psm", "--url", "https://cdn.example.com/p.psm",
        ])
        #expect(sealed.status == 0, "\(sealed.errors)")
        try world.directory.write("photo.json", sealed.output)
        let descriptor = try #require(try JSONParser.parse(sealed.output.trimmingCharacters(in: .newlines)).objectValue)
        #expect(descriptor["type"] == .string("image/jpeg") && descriptor["length"] == .number(JSONNumber(150_000)))
        #expect(try world.run(["media", "seal", "photo.jpg", "--out", "photo.psm"]).status == 2, "never overwritten")

        let opened = try world.run(["media", "open", "photo.psm", "--descriptor", "photo.json", "--out", "back.jpg"])
        #expect(opened.status == 0, "\(opened.errors)")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: world.directory.file("back.jpg")))) == photo)

        var object = Array(try Data(contentsOf: URL(fileURLWithPath: world.directory.file("photo.psm"))))
        object[object.count / 2] ^= 1
        try Data(object).write(to: URL(fileURLWithPath: world.directory.file("bad.psm")))
        let refused = try world.run(["media", "open", "bad.psm", "--descriptor", "photo.json", "--out", "bad.jpg"])
        #expect(refused.status == 1 && refused.errors.contains("media-integrity"))
        #expect(!FileManager.default.fileExists(atPath: world.directory.file("bad.jpg")), "nothing released")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: world.directory.path).allSatisfy {
                !$0.hasSuffix(".part")
            })

        try Data([0, 0, 0, 0x18] + Array("ftypheic".utf8) + [UInt8](repeating: 1, count: 100)).write(
            to: URL(fileURLWithPath: world.directory.file("photo.heic")))
        let heic = try world.run(["media", "seal", "photo.heic", "--out", "heic.psm"])
        #expect(heic.status == 2 && heic.errors.contains("transcode"))
    }

    @Test(
        "media seal --url and encrypt --media refuse a URL the device would refuse, by the same rule",
        arguments: [
            "https://user@cdn.example/x", "https://cdn.example:0/x", "https://[::1/x", "https://%65vil/x",
            "https://0177.0.0.1/x", "http://cdn.example/x",
        ])
    func sealerURLRule(_ url: String) throws {
        let world = try CLIWorld()
        try Data(MediaSamples.media(.png, length: 500)).write(to: URL(fileURLWithPath: world.directory.file("a.png")))
        let sealed = try world.run(["media", "seal", "a.png", "--out", "a.psm", "--url", url])
        #expect(sealed.status != 0 && sealed.errors.contains("media-insecure-url"), "\(url): \(sealed.errors)")
        #expect(!FileManager.default.fileExists(atPath: world.directory.file("a.psm")), "nothing written")
        let good = try world.run(["media", "seal", "a.png", "--out", "b.psm", "--url", "https://cdn.example/b.psm"])
        try world.directory.write(
            "bad.json", good.output.replacingOccurrences(of: "https://cdn.example/b.psm", with: url))
        let encrypted = try world.encrypt(#"{"aps":{"alert":"x"}}"#, ["--media", "bad.json"])
        #expect(encrypted.status != 0 && encrypted.errors.contains("url"), "\(url): \(encrypted.errors)")
    }

    @Test("a decrypt killed during its download (SIGTERM, SIGKILL) leaves nothing in the media folder")
    func killedDownload() throws {
        let world = try CLIWorld()
        let server = try Self.serve(in: world)
        defer { server.stop() }
        let outer = try Self.push(
            #"{"aps":{"alert":{"title":"Photo"}}}"#, png: 200_000, at: "stall", from: server, in: world)
        try world.directory.write("outer.json", outer)
        for signal in [SIGTERM, SIGKILL] {
            let child = try Self.spawn(
                [
                    CLIRunner.executable.path, "decrypt", "--store", "store", "--media-dir", "inbox",
                    "--allow-local-media", "--ca-file", server.certificate, "outer.json",
                ], in: world.directory.path)
            Thread.sleep(forTimeInterval: 1.5)  // the server has sent its headers and stalls
            kill(child, signal)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            #expect(status & 0x7F == signal, "ended by the signal, not by the download's deadline")
            let left = try FileManager.default.contentsOfDirectory(atPath: world.directory.file("inbox"))
            #expect(left.isEmpty, "signal \(signal) left \(left)")
        }
    }

    /// The media server over `served/`, with an empty `inbox/` beside it.
    static func serve(in world: CLIWorld) throws -> MediaServer {
        for folder in ["served", "inbox"] {
            try FileManager.default.createDirectory(
                atPath: world.directory.file(folder), withIntermediateDirectories: true)
        }
        return try MediaServer(mediaRoot: world.directory.file("served"), in: world.directory)
    }

    /// `payload` sealed with a PNG of `png` bytes served under `/<path>/a.psm` (its descriptor
    /// in `a.json`): the outer payload.
    static func push(_ payload: String, png: Int, at path: String, from server: MediaServer, in world: CLIWorld)
        throws -> String
    {
        try Data(MediaSamples.media(.png, length: png)).write(to: URL(fileURLWithPath: world.directory.file("a.png")))
        let sealed = try world.run([
            "media", "seal", "a.png", "--out", "served/a.psm", "--url", "\(server.url)/\(path)/a.psm",
        ])
        try world.directory.write("a.json", sealed.output)
        return try world.encrypt(payload, ["--media", "a.json"]).output
    }

    /// Starts `arguments` in `directory` with no signal blocked or ignored (a test runner's
    /// threads may block some, and a child inherits that), its output discarded.
    static func spawn(_ arguments: [String], in directory: String) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let command = ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, directory] + arguments
        var argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, "/bin/sh", &actions, &attributes, &argv, environ)
        guard status == 0 else { throw CocoaError(.executableLoad) }
        return child
    }

    @Test("encrypt --media seals the descriptor into the content; decrypt --media-dir fetches and attaches it")
    func endToEnd() throws {
        let world = try CLIWorld()
        let server = try Self.serve(in: world)
        defer { server.stop() }
        let outer = try Self.push(
            #"{"aps":{"alert":{"title":"Photo"}},"event_id":"m1"}"#, png: 90_000, at: "files", from: server, in: world)
        let descriptor = try String(contentsOfFile: world.directory.file("a.json"), encoding: .utf8)
        #expect(!outer.contains(server.url), "the URL travels only inside the envelope")
        let opened = try world.run(
            [
                "decrypt", "--store", "store", "--media-dir", "inbox", "--allow-local-media", "--ca-file",
                server.certificate,
            ], input: outer)
        #expect(opened.status == 0, "\(opened.errors)")
        let result = try #require(try JSONParser.parse(opened.output.trimmingCharacters(in: .newlines)).objectValue)
        let attachment = try #require(result["attachment"]?.objectValue)
        #expect(attachment["type"] == .string("image/png") && attachment["length"] == .number(JSONNumber(90_000)))

        try world.directory.write("gone.json", descriptor.replacingOccurrences(of: "/files/", with: "/missing/"))
        let gone = try world.encrypt(#"{"aps":{"alert":{"title":"Photo"}}}"#, ["--media", "gone.json"]).output
        let degraded = try world.run(
            [
                "decrypt", "--store", "store", "--media-dir", "inbox", "--allow-local-media", "--ca-file",
                server.certificate,
            ], input: gone)
        #expect(degraded.status == 1)
        #expect(
            degraded.output.contains(#""status":"decrypted""#)
                && degraded.output.contains(#""media-error":"media-unreachable""#))

        // Without --ca-file the system's trust applies: the test server's certificate is not in
        // it, unless SSL_CERT_FILE points at it (cli-v1.md).
        let untrusted = try world.run(
            ["decrypt", "--store", "store", "--media-dir", "inbox", "--allow-local-media"], input: outer)
        #expect(untrusted.status == 1 && untrusted.output.contains("certificate"), "\(untrusted.output)")
        let byEnvironment = try world.run(
            ["decrypt", "--store", "store", "--media-dir", "inbox", "--allow-local-media"], input: outer,
            environment: ["SSL_CERT_FILE": server.certificate])
        #expect(byEnvironment.status == 0 && byEnvironment.output.contains(#""attachment""#), "\(byEnvironment.output)")
    }
}
