import Foundation
import PushSealCore
import PushSealPrimitives
import PushSealTestSupport
import Testing

/// `pushseal webpush subscribe|seal|open`, as a backend in another language drives them.
@Suite("pushseal webpush")
struct WebPushCommandTests {
    let directory = TemporaryDirectory()
    let subscription: String

    init() throws {
        let made = try CLIRunner.run(
            ["webpush", "subscribe", "--endpoint", "https://push.example.net/p/abc", "--out", "receiver.json"],
            input: "", in: directory.path)
        #expect(made.status == 0, "\(made.errors)")
        subscription = made.output
        _ = try directory.write("subscription.json", made.output)
    }

    func run(_ arguments: [String], input: Data = Data()) throws -> CLIRunner.Result {
        try CLIRunner.run(arguments, input: input, in: directory.path)
    }

    func object(_ line: String) throws -> JSONObject {
        try #require(try JSONParser.parse(Array(line.utf8)).objectValue)
    }

    @Test(
        "subscribe writes the receiver's keys with mode 0600 and prints the subscription; run again, it keeps and uses them; it never overwrites another file"
    )
    func subscribe() throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file("receiver.json"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let printed = try object(subscription.trimmingCharacters(in: .newlines))
        let parsed = try WebPushSubscription(json: printed)
        #expect(parsed.endpoint == "https://push.example.net/p/abc")
        let keys = try Data(contentsOf: URL(fileURLWithPath: directory.file("receiver.json")))
        // Run again, as a script is: the same keys, the same subscription, the file untouched.
        let again = try run([
            "webpush", "subscribe", "--endpoint", "https://push.example.net/p/abc", "--out", "receiver.json",
        ])
        #expect(again.status == 0 && again.output == subscription, "\(again.errors)")
        #expect(again.errors.contains("already holds a receiver's keys"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("receiver.json"))) == keys)
        // A file that is not a receiver's keys, or not kept as a secret, is never overwritten.
        _ = try directory.write("notes.json", #"{"note":"mine"}"#)
        chmod(directory.file("notes.json"), 0o600)
        _ = try directory.write("loose.json", String(decoding: keys, as: UTF8.self))
        chmod(directory.file("loose.json"), 0o644)
        for (file, reason) in [("notes.json", "invalid-receiver-key"), ("loose.json", "readable by its owner only")] {
            let refused = try run([
                "webpush", "subscribe", "--endpoint", "https://push.example.net/p/2", "--out", file,
            ])
            #expect(refused.status == 2 && refused.output.isEmpty, "\(file)")
            #expect(
                refused.errors.contains("never overwritten") && refused.errors.contains(reason), "\(refused.errors)")
        }
        #expect(try String(contentsOfFile: directory.file("notes.json"), encoding: .utf8) == #"{"note":"mine"}"#)
        let insecure = try run([
            "webpush", "subscribe", "--endpoint", "http://push.example.net/p", "--out", "other.json",
        ])
        #expect(insecure.status == 2)
        #expect(insecure.errors.contains("invalid-subscription"))
    }

    @Test("seal prints the body for the subscription; open gives back the payload, and http_ece opens it too")
    func sealAndOpen() throws {
        let payload = #"{"title":"Dentist","body":"Due now","url":"/appointments/7"}"#
        let sealed = try run(["webpush", "seal", "--subscription", "subscription.json"], input: Data(payload.utf8))
        #expect(sealed.status == 0, "\(sealed.errors)")
        #expect(!sealed.output.contains("Dentist"))
        let result = try object(sealed.output.trimmingCharacters(in: .newlines))
        #expect(result["endpoint"] == .string("https://push.example.net/p/abc"))
        #expect(
            result["headers"]
                == .object(JSONObject([("Content-Encoding", .string("aes128gcm")), ("TTL", .string("2419200"))])))
        #expect(result["length"] == .number(JSONNumber(86 + 128 + 16)))
        let body = try #require(result["body"]?.stringValue)

        let bodyFile = directory.file("message.bin")
        try Data(try #require(Base64URL.decode(body))).write(to: URL(fileURLWithPath: bodyFile))
        let opened = try run(["webpush", "open", "--receiver", "receiver.json", "message.bin"])
        #expect(opened.status == 0, "\(opened.errors)")
        let openedResult = try object(opened.output.trimmingCharacters(in: .newlines))
        #expect(openedResult["status"] == .string("opened"))
        #expect(openedResult["payload"] == (try JSONParser.parse(Array(payload.utf8))))

        let peer = try PythonPeer.webPush(
            ["open", "--receiver", directory.file("receiver.json")], input: "{\"body\":\"\(body)\"}\n")
        let peerResult = try object(try #require(peer.lines.first))
        #expect(peerResult["content"].flatMap { $0.stringValue } == Base64URL.encode(Array(payload.utf8)))
    }

    @Test("open names content that is not JSON as text, and bytes that are not UTF-8 as base64url")
    func openContentKinds() throws {
        for (content, member) in [(Data("plain words".utf8), "text"), (Data([0xFF, 0x00, 0xC3]), "base64url")] {
            let sealed = try run(
                ["webpush", "seal", "--subscription", "subscription.json", "--pad", "1"], input: content)
            let body = try #require(try object(sealed.output.trimmingCharacters(in: .newlines))["body"]?.stringValue)
            let opened = try run(
                ["webpush", "open", "--receiver", "receiver.json", "--json-lines"],
                input: Data("{\"body\":\"\(body)\"}\n".utf8))
            let result = try object(opened.output.trimmingCharacters(in: .newlines))
            #expect(result[member] != nil, "\(opened.output)")
        }
    }

    @Test("seal --json-lines: one answer per line in order, blank lines skipped, bad lines named, status 1")
    func sealBatch() throws {
        let lines = [
            #"{"payload":{"title":"one"}}"#,
            "",
            #"{"payload":"two","subscription":{"endpoint":"https://push.example.net/other"}}"#,
            "not json",
            #"{"subscription":\#(subscription.trimmingCharacters(in: .newlines)),"payload":{"title":"four"}}"#,
            #"{"title":"no payload"}"#,
            #"{"payload":"\#(String(repeating: "x", count: 4_000))"}"#,
        ]
        let result = try run(
            ["webpush", "seal", "--json-lines", "--subscription", "subscription.json"],
            input: Data(lines.joined(separator: "\n").utf8))
        #expect(result.status == 1)
        let answers = try result.lines.map(object)
        #expect(answers.count == 6)
        #expect(answers[0]["body"] != nil)
        #expect(answers[1]["line"] == .number(JSONNumber(3)))
        #expect(answers[1]["reason"] == .string("invalid-subscription"))
        #expect(answers[2]["line"] == .number(JSONNumber(4)))
        #expect(answers[3]["body"] != nil)
        #expect(answers[4]["error"]?.stringValue?.contains("\"payload\" is missing") == true)
        #expect(answers[5]["reason"] == .string("message-too-large"))
    }

    @Test("open refuses a damaged message with its reason and status 1; --json-lines keeps going past bad lines")
    func openRefusals() throws {
        let sealed = try run(["webpush", "seal", "--subscription", "subscription.json"], input: Data("hello".utf8))
        let body = try #require(try object(sealed.output.trimmingCharacters(in: .newlines))["body"]?.stringValue)
        var damaged = Array(body)
        damaged[damaged.count - 3] = damaged[damaged.count - 3] == "A" ? "B" : "A"
        let input = [
            "{\"body\":\"\(String(damaged))\"}", "{\"body\":\"\(body)\"}", "{\"body\":\"***\"}",
            "{\"body\":\"\(body.prefix(40))\"}",
        ]
        let result = try run(
            ["webpush", "open", "--receiver", "receiver.json", "--json-lines"],
            input: Data(input.joined(separator: "\n").utf8))
        #expect(result.status == 1)
        let answers = try result.lines.map(object)
        #expect(answers.count == 4)
        #expect(answers[0]["reason"] == .string("decryption-failed"))
        #expect(answers[1]["text"] == .string("hello"))
        #expect(answers[2]["line"] == .number(JSONNumber(3)))
        #expect(answers[3]["reason"] == .string("malformed-header"))
    }

    @Test("--vapid-key and --subject add an RFC 8292 Authorization that a push service's check accepts; --ttl sets TTL")
    func vapid() throws {
        let generated = try run(["keys", "generate", "--suite", "p256", "--out", "vapid.jwk"])
        #expect(generated.status == 0)
        let sealed = try run(
            [
                "webpush", "seal", "--subscription", "subscription.json", "--vapid-key", "vapid.jwk", "--subject",
                "mailto:ops@example.com", "--ttl", "60",
            ], input: Data("hi".utf8))
        #expect(sealed.status == 0, "\(sealed.errors)")
        let headers = try #require(try object(sealed.output.trimmingCharacters(in: .newlines))["headers"]?.objectValue)
        #expect(headers["TTL"] == .string("60"))
        let authorization = try #require(headers["Authorization"]?.stringValue)
        let check = JSONWriter.string(
            .object(
                JSONObject([
                    ("authorization", .string(authorization)), ("endpoint", .string("https://push.example.net/p/abc")),
                ])))
        let peer = try PythonPeer.webPush(["vapid-check"], input: check + "\n")
        let answer = try object(try #require(peer.lines.first))
        #expect(answer["error"] == nil, "\(peer.output)")
        #expect(answer["claims"]?.objectValue?["aud"] == .string("https://push.example.net"))

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory.file("vapid.jwk"))
        let exposed = try run(
            [
                "webpush", "seal", "--subscription", "subscription.json", "--vapid-key", "vapid.jwk", "--subject",
                "mailto:a@b",
            ],
            input: Data("hi".utf8))
        #expect(exposed.status == 2)
        #expect(exposed.errors.contains("chmod 600"))
    }

    @Test("usage errors are status 2 with a message naming the problem")
    func usage() throws {
        let cases: [([String], String)] = [
            (["webpush"], "expected subscribe, seal, open or send"),
            (["webpush", "push"], "unknown subcommand"),
            (["webpush", "seal"], "--subscription SUBSCRIPTION.json is required"),
            (["webpush", "seal", "--subscription", "missing.json"], "cannot read missing.json"),
            (["webpush", "seal", "--subscription", "receiver.json"], "bad subscription file receiver.json"),
            (["webpush", "seal", "--subscription", "subscription.json", "--pad", "0"], "--pad must be 1 to 3994"),
            (["webpush", "open"], "--receiver"),
            (["webpush", "open", "--receiver", "subscription.json"], "bad receiver file subscription.json"),
            (["webpush", "subscribe", "--out", "x.json"], "--endpoint"),
            (["webpush", "seal", "--subscription", "subscription.json", "--vapid-key", "k.jwk"], "go together"),
            (["webpush", "seal", "--subscription", "subscription.json", "--ttl", "-1"], "--ttl must be 0 to 2419200"),
            (
                [
                    "webpush", "seal", "--subscription", "subscription.json", "--vapid-key", "receiver.json",
                    "--subject", "mailto:a@b",
                ],
                "receiver.json",
            ),
        ]
        for (arguments, message) in cases {
            let result = try run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errors.contains(message), "\(arguments): \(result.errors)")
        }
    }

    @Test("content past 3,993 bytes fails as message-too-large with status 1; nothing prints the secret")
    func tooLargeAndSecrets() throws {
        let result = try run(
            ["webpush", "seal", "--subscription", "subscription.json"], input: Data(repeating: 0x41, count: 3_994))
        #expect(result.status == 1)
        #expect(result.errors.contains("message-too-large"))
        let auth = try #require(
            try object(subscription.trimmingCharacters(in: .newlines))["keys"]?.objectValue?["auth"]?.stringValue)
        let bad = try run(["webpush", "open", "--receiver", "subscription.json"])
        #expect(!bad.errors.contains(auth))
        #expect(!result.errors.contains(auth))
    }
}

/// `pushseal webpush send` against the mock push service.
@Suite("pushseal webpush send")
struct WebPushSendCommandTests {
    @Test("seals each line for its subscription and sends it: one answer per line in order, bad lines named, status 1")
    func send() throws {
        let directory = TemporaryDirectory()
        func run(_ arguments: [String], input: String = "") throws -> CLIRunner.Result {
            try CLIRunner.run(arguments, input: Data(input.utf8), in: directory.path)
        }
        let subscribed = try run(
            ["webpush", "subscribe", "--endpoint", "https://push.example.net/p", "--out", "receiver.json"])
        var subscription = try #require(
            try JSONParser.parse(Array(subscribed.output.trimmingCharacters(in: .newlines).utf8)).objectValue)
        _ = try run(["keys", "generate", "--suite", "p256", "--out", "vapid.jwk"])
        let service = try MockPushService(receiverFile: directory.file("receiver.json"), in: directory)

        func line(_ script: String, _ extra: String = "") -> String {
            subscription["endpoint"] = .string(service.endpoint(script))
            return
                #"{"subscription":\#(JSONWriter.string(.object(subscription))),"payload":{"title":"\#(script)"}\#(extra)}"#
        }
        let input = [
            line("ok", #","urgency":"high","topic":"t1","ttl":60"#), line("gone"), "not json",
            #"{"subscription":{"endpoint":"https://x.example/p"},"payload":1}"#, line("ok", #","topic":"bad topic""#),
            line("throttle"),
        ].joined(separator: "\n")
        let arguments = [
            "webpush", "send", "--vapid-key", "vapid.jwk", "--subject", "mailto:ops@example.com", "--ca-file",
            service.certificate, "--allow-local",
        ]
        let result = try run(arguments, input: input)
        #expect(result.status == 1)
        let answers = try result.lines.map { try #require(try JSONParser.parse(Array($0.utf8)).objectValue) }
        #expect(answers.count == 6)
        #expect(answers.map { $0["line"] } == (1...6).map { .number(JSONNumber($0)) })
        #expect(answers.map { $0["status"]?.stringValue } == ["sent", "gone", "failed", "failed", "failed", "sent"])
        #expect(answers[0]["http_status"] == .number(JSONNumber(201)))
        #expect(answers[3]["reason"] == .string("invalid-subscription"))
        #expect(answers[4]["error"]?.stringValue?.contains("topic") == true)
        #expect(answers[5]["attempts"] == .number(JSONNumber(2)))
        #expect(result.errors.contains("2 sent, 1 gone, 3 failed"))
        let first = try #require(service.requests().first { ($0["path"] as? String)?.contains("/ok/") == true })
        #expect(first["urgency"] as? String == "high")
        #expect(first["ttl"] as? String == "60")

        let local = try run(Array(arguments.dropLast()), input: line("ok"))
        #expect(local.status == 1)
        #expect(local.output.contains("local"))
        let missingSubject = try run(["webpush", "send", "--vapid-key", "vapid.jwk"])
        #expect(missingSubject.status == 2)
    }
}
