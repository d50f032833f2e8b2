import PushSealCLI
import PushSealCore
import PushSealDecryptor
import PushSealEncryptor
import Testing

@Suite("Command-line parsing")
struct InvocationTests {
    @Test("the commands of cli-v1.md parse, with --flag value and --flag=value")
    func parses() throws {
        #expect(
            try Invocation.parse(["keys", "generate", "--suite", "p256", "--kid=k1", "--out", "f"])
                == .keysGenerate(suite: .p256, kid: "k1", output: "f"))
        #expect(try Invocation.parse(["keys", "public"]) == .keysPublic(input: nil, applicationServerKey: false))
        #expect(try Invocation.parse(["keys", "public", "-"]) == .keysPublic(input: nil, applicationServerKey: false))
        #expect(
            try Invocation.parse(["keys", "public", "--application-server-key", "vapid.jwk"])
                == .keysPublic(input: "vapid.jwk", applicationServerKey: true))
        #expect(
            try Invocation.parse(["keys", "import", "--store", "s", "--sender", "k.jwk"])
                == .keysImport(store: "s", sender: true, input: "k.jwk"))
        #expect(
            try Invocation.parse(["keys", "rotate", "--store", "s"]) == .keysRotate(store: "s", suite: nil, repeats: 1))
        #expect(
            try Invocation.parse(["keys", "retire", "--store", "s", "--kid", "a"])
                == .keysRetire(store: "s", kid: "a", role: nil))
        #expect(
            try Invocation.parse(["keys", "retire", "--store", "s", "--kid", "a", "--role", "sender"])
                == .keysRetire(store: "s", kid: "a", role: .sender))
        #expect(throws: UsageError.self) {
            try Invocation.parse(["keys", "retire", "--store", "s", "--kid", "a", "--role", "x"])
        }
        #expect(
            try Invocation.parse(["keys", "policy", "--store", "s", "--require-sealed", "--neutral-title", "Hi"])
                == .keysPolicy(store: "s", change: PolicyChange(requireSealed: true, neutralTitle: "Hi")))
        #expect(throws: UsageError.self) {
            try Invocation.parse(["keys", "policy", "--store", "s", "--require-sealed", "--allow-unsealed"])
        }
        #expect(
            try Invocation.parse(["decrypt", "--store", "s", "--record", "--json-lines", "in"])
                == .decrypt(DecryptArguments(store: "s", record: true, jsonLines: true, input: "in")))
        #expect(
            try Invocation.parse(["decrypt", "--store", "s", "--contract", "c.json"])
                == .decrypt(DecryptArguments(store: "s", contract: "c.json")))
        #expect(
            try Invocation.parse(["decrypt", "--store", "s", "--ca-file", "x.pem", "--allow-local-fetch"])
                == .decrypt(DecryptArguments(store: "s", caFile: "x.pem", allowLocalFetch: true)),
            "a fetch of referenced content uses them without --media-dir")
        #expect(
            try Invocation.parse(["decrypt", "--store", "s", "--receipt"])
                == .decrypt(DecryptArguments(store: "s", receipt: true)))
        #expect(try Invocation.parse(["decrypt", "--store", "s"]) == .decrypt(DecryptArguments(store: "s")))
        #expect(throws: UsageError.self) {
            try Invocation.parse(["decrypt", "--store", "s", "--allow-local-media"])
        }
        #expect(throws: UsageError.self) {
            try Invocation.parse(["encrypt", "--to", "k", "--event-id", "random"])
        }
        #expect(try Invocation.parse(["inspect"]) == .inspect(input: nil))
        guard
            case .encrypt(let arguments) = try Invocation.parse([
                "encrypt", "--to", "d.jwk", "--clear", "thread-id", "--clear", "type", "--push-type", "voip", "--pad",
                "256",
                "--truncate", "--placeholder-loc-key", "NEW", "--apns-request", "--topic", "com.x", "--priority", "5",
            ])
        else {
            Issue.record("not an encrypt invocation")
            return
        }
        #expect(arguments.recipientFile == "d.jwk")
        #expect(arguments.options.clearMembers == ["thread-id", "type"])
        #expect(arguments.options.pushType == .voip)
        #expect(arguments.options.padBlock == 256)
        #expect(arguments.options.overflow == .truncateBody)
        #expect(arguments.options.placeholder == .localized(key: "NEW"))
        #expect(arguments.requestDefaults.topic == "com.x" && arguments.requestDefaults.priority == 5)
        guard
            case .send(let send) = try Invocation.parse([
                "send", "--auth-key", "a.p8", "--key-id", "K", "--team-id", "T", "--sandbox", "--concurrency", "8",
                "--topic", "com.x", "--clear", "type",
            ])
        else {
            Issue.record("not a send invocation")
            return
        }
        #expect(send.endpoint == "https://api.sandbox.push.apple.com" && send.concurrency == 8)
        #expect(send.requestDefaults.topic == "com.x" && send.options.clearMembers == ["type"])
    }

    static let usageErrors: [[String]] = [
        ["frobnicate"], ["keys"], ["keys", "generate"], ["keys", "generate", "--suite", "rsa"],
        ["keys", "generate", "--suite", "x25519", "--kid", "bad kid"], ["keys", "init"],
        ["keys", "retire", "--store", "s"],
        ["encrypt"], ["encrypt", "--to"], ["encrypt", "--to", "k", "--bogus"], ["encrypt", "--to", "k", "--pad", "x"],
        ["encrypt", "--to", "k", "--pad", "0"], ["encrypt", "--to", "k", "--push-type", "silent"],
        ["encrypt", "--to", "k", "--apns-request"],
        ["encrypt", "--to", "k", "--priority", "7", "--apns-request", "--topic", "t"],
        ["encrypt", "--to", "k", "--placeholder-loc-key", "K", "--placeholder-title", "T"],
        ["encrypt", "--to", "k", "--clear", "enc"], ["encrypt", "--to", "k", "a", "b"], ["decrypt"], ["inspect", "-x"],
        ["keys", "list", "--store", "s", "extra"], ["keys", "rotate", "--store", "s", "--repeat", "0"],
        ["encrypt", "--json-lines", "--jobs", "0"], ["send"], ["send", "--auth-key", "k.p8", "--key-id", "K"],
        ["send", "--auth-key", "k", "--key-id", "K", "--team-id", "T", "--host", "http://127.0.0.1:1"],
        ["send", "--auth-key", "k", "--key-id", "K", "--team-id", "T", "--sandbox", "--host", "https://h"],
        ["send", "--auth-key", "k", "--key-id", "K", "--team-id", "T", "--concurrency", "0"],
    ]

    @Test("bad command lines are usage errors with a message naming the problem", arguments: usageErrors)
    func refuses(_ arguments: [String]) {
        do {
            _ = try Invocation.parse(arguments)
            Issue.record("accepted \(arguments)")
        } catch {
            #expect(!error.message.isEmpty)
        }
    }

    static let send = ["send", "--auth-key", "k", "--key-id", "K", "--team-id", "T"]
    static let webPushSend = ["webpush", "send", "--vapid-key", "v.jwk", "--subject", "mailto:a@b"]

    /// Every integer flag with bounds, and the exact refusal cli-v1.md's users see.
    static let boundedIntegers: [([String], String)] = [
        (["encrypt", "--json-lines", "--jobs", "65"], "encrypt: --jobs must be 1 to 64, not 65"),
        (send + ["--concurrency", "1001"], "send: --concurrency must be 1 to 1000, not 1001"),
        (send + ["--timeout", "0"], "send: --timeout must be 1 to 300 seconds, not 0"),
        (
            ["webpush", "seal", "--subscription", "s", "--pad", "3995"],
            "webpush seal: --pad must be 1 to 3994 bytes, not 3995"
        ),
        (
            ["webpush", "seal", "--subscription", "s", "--ttl", "2419201"],
            "webpush seal: --ttl must be 0 to 2419200 seconds (28 days), not 2419201"
        ),
        (webPushSend + ["--ttl", "-1"], "webpush send: --ttl must be 0 to 2419200 seconds (28 days), not -1"),
        (webPushSend + ["--pad", "0"], "webpush send: --pad must be 1 to 3994 bytes, not 0"),
        (webPushSend + ["--timeout", "301"], "webpush send: --timeout must be 1 to 300 seconds, not 301"),
    ]

    @Test("an integer flag outside its bounds names the flag, the bounds and the value", arguments: boundedIntegers)
    func refusesOutOfBounds(_ arguments: [String], message: String) {
        do {
            _ = try Invocation.parse(arguments)
            Issue.record("accepted \(arguments)")
        } catch {
            #expect(error.message == message)
        }
    }
}
