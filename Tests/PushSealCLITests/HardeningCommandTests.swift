import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

/// The review's defects at the command line: each reproduced as a user or an attacker would,
/// then refused with a named reason and the documented exit status.
@Suite("pushseal under hostile conditions")
struct HardeningCommandTests {
    let temporary = TemporaryDirectory()

    func run(_ arguments: [String], input: String = "", outputFile: String? = nil) throws -> CLIRunner.Result {
        try CLIRunner.run(arguments, input: Data(input.utf8), in: temporary.path, outputFile: outputFile)
    }

    /// The kids in the store `s`, by `keys list`.
    func listedKids() throws -> [String] {
        try run(["keys", "list", "--store", "s"]).lines.compactMap {
            try JSONParser.parse($0).objectValue?["kid"]?.stringValue
        }
    }

    @Test("output lost to a full disk exits 2: keys generate, keys list, keys public, decrypt")
    func lostOutput() throws {
        #expect(try run(["keys", "init", "--store", "s"]).status == 0)
        #expect(try run(["keys", "rotate", "--store", "s"]).status == 0)
        for arguments in [
            ["keys", "generate", "--suite", "x25519"], ["keys", "list", "--store", "s"], ["keys", "public", "-"],
            ["decrypt", "--store", "s"],
        ] {
            let key = try run(["keys", "generate", "--suite", "x25519"]).output
            let result = try run(arguments, input: key, outputFile: "/dev/full")
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errors.contains("cannot write the result to standard output"), "\(result.errors)")
        }
    }

    @Test("a rotation whose key cannot be written out is not committed", arguments: ["xchacha", "x25519"])
    func rotationToFullDisk(_ suite: String) throws {
        #expect(try run(["keys", "init", "--store", "s"]).status == 0)
        #expect(try run(["keys", "rotate", "--store", "s", "--suite", "p256"]).status == 0)
        let before = try listedKids()
        let lost = try run(["keys", "rotate", "--store", "s", "--suite", suite], outputFile: "/dev/full")
        #expect(lost.status == 2)
        #expect(lost.errors.contains("standard output"), "\(lost.errors)")
        #expect(try listedKids() == before, "no key was added, and the current key is unchanged")
        let list = try run(["keys", "list", "--store", "s"]).output
        #expect(list.contains("\"current\":true") && list.contains("P256"))
    }

    @Test("a key file whose write fails is removed, so a retry is not refused as existing")
    func keyFileWriteFailure() throws {
        // A file-size limit of 0 makes write(2) fail with EFBIG (SIGXFSZ ignored).
        let script = "trap '' XFSZ; ulimit -f 0; exec \"$0\" keys generate --suite x25519 --out k.jwk"
        let failed = try CLIRunner.run(
            executable: URL(fileURLWithPath: "/bin/bash"), ["-c", script, CLIRunner.executable.path], input: Data(),
            in: temporary.path)
        #expect(failed.status == 2)
        #expect(failed.errors.contains("cannot write k.jwk"), "\(failed.errors)")
        #expect(!FileManager.default.fileExists(atPath: temporary.file("k.jwk")))
        #expect(try run(["keys", "generate", "--suite", "x25519", "--out", "k.jwk"]).status == 0)
    }

    @Test("keys init: idempotent, tightens a fresh 0755 directory, and six processes racing never fail")
    func initialize() throws {
        try FileManager.default.createDirectory(atPath: temporary.file("loose"), withIntermediateDirectories: false)
        chmod(temporary.file("loose"), 0o755)
        let first = try run(["keys", "init", "--store", "loose"])
        #expect(first.status == 0 && first.output.contains("\"created\":true"))
        #expect(try run(["keys", "list", "--store", "loose"]).status == 0, "usable right after init")
        #expect(try run(["keys", "init", "--store", "loose"]).output.contains("\"created\":false"))

        for round in 0..<10 {
            let results = Collected<CLIRunner.Result>()
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                if let result = try? run(["keys", "init", "--store", "race-\(round)"]) {
                    results.append(result)
                }
            }
            let all = results.items
            #expect(all.count == 6 && all.allSatisfy { $0.status == 0 }, "round \(round): \(all.map(\.errors))")
            #expect(all.filter { $0.output.contains("\"created\":true") }.count == 1, "round \(round)")
        }
    }

    @Test("retire --role removes the named key only; import refuses a kid used by another role")
    func retireByRole() throws {
        #expect(try run(["keys", "init", "--store", "s"]).status == 0)
        let device = try run(["keys", "generate", "--suite", "x25519", "--kid", "twin"]).output
        #expect(try run(["keys", "import", "--store", "s"], input: device).status == 0)
        let other = try run(["keys", "generate", "--suite", "x25519", "--kid", "twin"]).output
        let sender = try run(["keys", "public"], input: other).output
        let clash = try run(["keys", "import", "--store", "s", "--sender"], input: sender)
        #expect(clash.status == 2 && clash.errors.contains("kids are unique"), "\(clash.errors)")
        let wrongRole = try run(["keys", "retire", "--store", "s", "--kid", "twin", "--role", "sender"])
        #expect(wrongRole.status == 2 && wrongRole.errors.contains("no sender key"), "\(wrongRole.errors)")
        #expect(try listedKids() == ["twin"])
    }

    @Test("keys policy --require-sealed: decrypt shows only the neutral text for an unsealed or unopenable payload")
    func requireSealed() throws {
        #expect(try run(["keys", "init", "--store", "s"]).status == 0)
        let spoof = #"{"aps":{"alert":{"title":"Bank","body":"Call now"}},"type":"order","id":"1"}"#
        #expect(try run(["decrypt", "--store", "s"], input: spoof).output.contains("\"status\":\"plain\""))
        let set = try run(["keys", "policy", "--store", "s", "--require-sealed", "--neutral-body", "Open the app"])
        #expect(set.status == 0)
        #expect(
            set.output.contains("\"require-sealed\":true") && set.output.contains("\"neutral-body\":\"Open the app\""))
        #expect(
            try run(["keys", "policy", "--store", "s"]).output == set.output, "printing the policy changes nothing")
        let refused = try run(["decrypt", "--store", "s"], input: spoof)
        #expect(refused.status == 1)
        let object = try #require(try JSONParser.parse(refused.lines.first ?? "").objectValue)
        #expect(object["reason"] == .string("not-sealed"))
        let notification = try #require(object["notification"]?.objectValue)
        #expect(notification["body"] == .string("Open the app"))
        #expect(!refused.output.contains("Bank") && !refused.output.contains("order"))
        let forged = #"{"aps":{"alert":{"title":"Bank","body":"Call now"},"category":"PAY"},"enc":"x","type":"order"}"#
        let forgedResult = try run(["decrypt", "--store", "s"], input: forged)
        #expect(forgedResult.status == 1)
        #expect(forgedResult.output.contains("\"reason\":\"malformed-envelope\""))
        #expect(forgedResult.output.contains("Open the app"))
        #expect(!forgedResult.output.contains("Bank") && !forgedResult.output.contains("PAY"), "\(forgedResult.output)")
        #expect(try run(["keys", "policy", "--store", "s", "--allow-unsealed"]).status == 0)
        #expect(try run(["decrypt", "--store", "s"], input: spoof).status == 0)
    }

    @Test(
        "diagnostics escape what an attacker sent: ESC, C1 CSI, DEL, U+2028 and bidi overrides never reach the terminal raw"
    )
    func escapedDiagnostics() throws {
        #expect(try run(["keys", "init", "--store", "s"]).status == 0)
        try temporary.write("contract.json", #"{"schema_versions":[1],"routes":{"inbox":{}}}"#)
        // JSON escapes: the parsed type holds the raw characters.
        let payload =
            #"{"aps":{"alert":"x"},"type":"inbox","event_id":"e","schema_version":1,"\u001b[2J\u009b31m\u007f\u2028\u202egpj.exe_url":1}"#
        let key = try run(["keys", "generate", "--suite", "x25519"]).output
        try temporary.write("device.jwk", try run(["keys", "public"], input: key).output)
        let refused = try run(["encrypt", "--to", "device.jwk", "--contract", "contract.json"], input: payload)
        #expect(refused.status == 1, "\(refused.errors)")
        for raw: Unicode.Scalar in ["\u{1B}", "\u{9B}", "\u{7F}", "\u{2028}", "\u{202E}"] {
            #expect(!refused.errors.unicodeScalars.contains(raw), "U+\(String(raw.value, radix: 16)) raw on stderr")
        }
        #expect(refused.errors.contains(#"\u{1B}[2J\u{9B}31m\u{7F}\u{2028}\u{202E}gpj.exe"#), "\(refused.errors)")
        #expect(refused.errors.hasSuffix("\n") && refused.errors.filter { $0 == "\n" }.count == 1, "one line")
    }

    @Test("decrypt --record on a corrupt ledger says so on standard error, moves it aside and still records")
    func corruptLedger() throws {
        #expect(try run(["keys", "init", "--store", "s"]).status == 0)
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: temporary.file("s/ledger.sqlite")))
        chmod(temporary.file("s/ledger.sqlite"), 0o600)
        let plain = #"{"aps":{"alert":"hello"}}"#
        let result = try run(["decrypt", "--store", "s", "--record"], input: plain)
        #expect(result.status == 0)
        #expect(result.errors.contains("the event ledger was corrupt; moved it to"), "\(result.errors)")
        let names = try FileManager.default.contentsOfDirectory(atPath: temporary.file("s"))
        #expect(names.contains { $0.hasPrefix("ledger.sqlite.corrupt-") })
        #expect(names.contains("ledger.sqlite"))
    }

    @Test("a FIFO as keys.json: keys list fails and decrypt degrades, both at once")
    func fifoStore() throws {
        #expect(try run(["keys", "init", "--store", "s"]).status == 0)
        try temporary.write("device.pub.jwk", try run(["keys", "rotate", "--store", "s"]).output)
        let sealed = try run(["encrypt", "--to", "device.pub.jwk"], input: #"{"aps":{"alert":"secret"}}"#).output
        try FileManager.default.removeItem(atPath: temporary.file("s/keys.json"))
        #expect(mkfifo(temporary.file("s/keys.json"), 0o600) == 0)
        let started = Date()
        let list = try run(["keys", "list", "--store", "s"])
        #expect(list.status == 2 && list.errors.contains("is a FIFO"), "\(list.errors)")
        let decrypt = try run(["decrypt", "--store", "s"], input: sealed)
        #expect(decrypt.status == 1)
        #expect(decrypt.output.contains("\"reason\":\"key-store-unavailable\""), "\(decrypt.output)")
        #expect(decrypt.errors.contains("is a FIFO"), "\(decrypt.errors)")
        #expect(Date().timeIntervalSince(started) < 30, "no hang")
    }
}

/// Results gathered from several threads.
private final class Collected<Item: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Item] = []

    func append(_ item: Item) { lock.withLock { stored.append(item) } }
    var items: [Item] { lock.withLock { stored } }
}
