import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

/// This build's `pushseal` against one built on the other crypto backend (libsodium + OpenSSL,
/// or CryptoKit): `make test` runs the CryptoKit build's tests with PUSHSEAL_PEER_CLI naming the
/// default build's binary, so every direction is covered in one run.
@Suite(
    "Cross-backend interop",
    .enabled(if: PeerCLI.url != nil, "PUSHSEAL_PEER_CLI is unset: `make test` sets it for this run"),
    .serialized)
struct CrossBackendTests {
    static let cases: [(suite: String, authenticated: Bool)] = [
        ("x25519", false), ("x25519", true), ("p256", false), ("p256", true), ("xchacha", false),
    ]

    /// Runs the peer's `pushseal` in `world`'s directory.
    static func peerRun(_ world: CLIWorld, _ arguments: [String], input: String) throws -> CLIRunner.Result {
        try CLIRunner.run(
            executable: try #require(PeerCLI.url), arguments, input: Data(input.utf8), in: world.directory.path)
    }

    /// The decrypted result of one `decrypt` line.
    static func result(_ line: String) throws -> JSONObject {
        try #require(try JSONParser.parse(line.trimmingCharacters(in: .newlines)).objectValue)
    }

    @Test("sealed by one backend, opened by the other, both ways: every suite and mode", arguments: cases)
    func bothWays(_ suite: String, _ authenticated: Bool) throws {
        let world = try CLIWorld(suite: suite, pinSender: authenticated)
        let sender = authenticated ? ["--sender", "sender.jwk"] : []
        let encrypt = ["encrypt", "--to", "device.jwk"] + sender
        let decrypt = ["decrypt", "--store", "store"]

        let byPeer = try Self.peerRun(world, encrypt, input: order)
        #expect(byPeer.status == 0, "\(byPeer.errors)")
        let openedHere = try Self.result(try world.run(decrypt, input: byPeer.output).output)
        let byThis = try world.run(encrypt, input: order)
        let openedThere = try Self.result(try Self.peerRun(world, decrypt, input: byThis.output).output)
        for opened in [openedHere, openedThere] {
            #expect(opened["status"] == .string("decrypted"), "\(opened)")
            #expect(opened["mode"] == .string(authenticated ? "auth" : "base"))
            #expect(opened["notification"]?.objectValue?["userInfo"] == (try JSONParser.parse(order)))
        }
    }

    @Test("every tampered envelope degrades with the same reason on both backends", arguments: InteropTests.suites)
    func sameReasons(_ suite: String) throws {
        let world = try CLIWorld(suite: suite)
        let outer = try Self.result(try world.encrypt(order).output)
        let text = try #require(outer["enc"]?.stringValue)
        let bytes = try #require(InteropTests.decode(text))
        var batch = ""
        func add(_ envelope: [UInt8]) {
            var copy = outer
            copy["enc"] = .string(InteropTests.encode(envelope))
            batch += JSONWriter.string(.object(copy)) + "\n"
        }
        for index in bytes.indices {
            for flip: UInt8 in [0x01, 0x80] {
                var tampered = bytes
                tampered[index] ^= flip
                add(tampered)
            }
        }
        for length in [0, 1, 3, 4, 20, bytes.count - 17, bytes.count - 16, bytes.count - 1] {
            add(Array(bytes.prefix(length)))
        }
        let decrypt = ["decrypt", "--store", "store", "--json-lines"]
        let here = try world.run(decrypt, input: batch).lines
        let there = try Self.peerRun(world, decrypt, input: batch).lines
        #expect(here.count == there.count && here.count == bytes.count * 2 + 8)
        for (mine, theirs) in zip(here, there) {
            let reason = try Self.result(mine)["reason"]
            #expect(reason != nil, "a tampered envelope opened")
            #expect(reason == (try Self.result(theirs)["reason"]))
        }
        print("cross-backend: \(here.count) tampered \(suite) envelopes degraded with the same reason on both backends")
    }
}

/// The other backend's `pushseal`, named by PUSHSEAL_PEER_CLI.
enum PeerCLI {
    static let url: URL? = ProcessInfo.processInfo.environment["PUSHSEAL_PEER_CLI"].map { URL(fileURLWithPath: $0) }
}
