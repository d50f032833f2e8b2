import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

#if canImport(Glibc)
    import Glibc
#endif

/// The extension's side of receipts (ios.md, "Receipts"), on Linux: an `ExtensionSession` with a
/// `ReceiptOutbox` opens pushes a gateway with receipts sent, behind an HTTPS front, and posts
/// what it showed before it calls the content handler; a receipt that cannot get there is kept in
/// the store and sent by the next run; a gateway that never answers costs the notification no
/// more than the receipt's budget.
@Suite("extension receipts against a gateway", .serialized)
struct ExtensionReceiptTests {
    /// A world with receipts behind `front`, device `a` registered, and a push sender.
    struct Pushing {
        let front: GatewayFetchTests.Front
        let world: GatewayWorld
        let token = GatewayWorld.deviceToken("00aa", 1)
        var sent = 0

        init() throws {
            front = try GatewayFetchTests.Front()
            world = try GatewayWorld(appSettings: #""receipts": {"url": "\#(front.server.url)"}"#)
            try front.attach(world)
            try world.registerDevice("a", user: "u1", token: token)
        }

        /// Pushes to `u1`: the push's id and the payload APNs got.
        mutating func push() throws -> (id: String, payload: JSONObject) {
            let accepted = try world.request(
                "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(GatewayReceiptTests.alert)}"#,
                token: world.adminToken)
            sent += 1
            let count = sent
            #expect(world.eventually { world.apns.requests().count == count })
            let body = try #require(world.apns.requests().last?["body"] as? String)
            return (
                try #require(accepted.json?["id"]?.stringValue),
                try #require(try JSONParser.parse(Array(body.utf8)).objectValue)
            )
        }

        var store: FileKeyStore { FileKeyStore(directory: world.directory.file("store-a")) }
        var outbox: ReceiptOutbox {
            ReceiptOutbox(
                store: store, poster: ReceiptPoster(caFile: front.server.certificate, allowsLocalDestinations: true))
        }

        /// Runs one extension session on `payload`: what it showed, the seconds until the content
        /// handler was called, and the display `GET /v1/pushes/{push}` gave when it was called.
        func run(_ payload: JSONObject, push: String? = nil) throws -> (
            result: DecryptionResult, seconds: Double, displayAtHandler: String?
        ) {
            let delivered = Protected<DecryptionResult?>(nil)
            let done = DispatchSemaphore(value: 0)
            let started = ContinuousClock.now
            let ended = Protected<(ContinuousClock.Instant, String?)?>(nil)
            let session = ExtensionSession(payload: payload, decryptor: Decryptor(keyStore: store), receipts: outbox) {
                result in
                let now = ContinuousClock.now
                let display = push.flatMap { try? self.display($0) }
                ended.withLock { $0 = (now, display) }
                delivered.withLock { $0 = result }
                done.signal()
            }
            session.didReceive()
            #expect(done.wait(timeout: .now() + 30) == .success)
            let result = try #require(delivered.withLock { $0 })
            let handled = try #require(ended.withLock { $0 })
            let elapsed = handled.0 - started
            return (
                result, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, handled.1
            )
        }

        /// What `GET /v1/pushes/{id}` says its one delivery showed: its `display`'s outcome.
        func display(_ push: String) throws -> String? {
            try GatewayReceiptTests.shown(world, push: push)["display"]?.objectValue?["outcome"]?.stringValue
        }
    }

    @Test("the receipt of what is shown is posted before the content handler is called, within its budget")
    func postedBeforeTheHandler() throws {
        var pushing = try Pushing()
        let push = try pushing.push()
        let shown = try pushing.run(push.payload, push: push.id)
        #expect(shown.result.status == .decrypted)
        #expect(shown.displayAtHandler == "displayed", "posted before the handler was called")
        #expect(shown.seconds < Double(ExtensionSession.receiptBudget.seconds), "\(shown.seconds) s")
        #expect(pushing.outbox.keptCount == 0)
    }

    @Test("a gateway that cannot be reached: the receipt is kept in the store, and the next run sends it")
    func keptAndSentByTheNextRun() throws {
        var pushing = try Pushing()
        let first = try pushing.push()
        // The front now leads to a port where nothing listens.
        try "\(try ChildProcess.freeLoopbackPort())".write(
            toFile: pushing.front.directoryFile("gateway-port"), atomically: true, encoding: .utf8)
        let unsent = try pushing.run(first.payload)
        #expect(unsent.result.status == .decrypted, "the notification shows whatever the receipt does")
        #expect(pushing.outbox.keptCount == 1)
        let kept = try String(contentsOfFile: pushing.store.directory + "/receipts.json", encoding: .utf8)
        #expect(kept.contains(first.payload["pushseal_receipt"]?.objectValue?["url"]?.stringValue ?? "?"))
        let mode =
            try FileManager.default.attributesOfItem(atPath: pushing.store.directory + "/receipts.json")[
                .posixPermissions] as? Int
        #expect(mode == 0o600, "it holds capabilities: 0600, as the keys")
        #expect(try pushing.display(first.id) == nil)

        try pushing.front.attach(pushing.world)
        let second = try pushing.push()
        _ = try pushing.run(second.payload)
        #expect(try pushing.display(second.id) == "displayed")
        // The batch goes after the handler was called: the test waits for it.
        #expect(
            pushing.world.eventually { (try? pushing.display(first.id)) == "displayed" },
            "the kept receipt went in the next run's batch")
        #expect(pushing.world.eventually { pushing.outbox.keptCount == 0 })
    }

    @Test(
        "a gateway that never answers holds the notification no longer than the receipt's budget; the receipt is kept")
    func hangingGateway() throws {
        var pushing = try Pushing()
        let push = try pushing.push()
        // A listener that takes connections and never reads them: the front relays to it, and no
        // answer ever comes.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        #expect(listen(listener, 16) == 0)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        try "\(UInt16(bigEndian: address.sin_port))".write(
            toFile: pushing.front.directoryFile("gateway-port"), atomically: true, encoding: .utf8)

        let shown = try pushing.run(push.payload)
        #expect(shown.result.status == .decrypted)
        let budget = ExtensionSession.receiptBudget.seconds
        #expect(
            shown.seconds >= Double(budget) - 0.5 && shown.seconds < Double(budget) + 1.5,
            "held about the receipt's \(budget) s: \(shown.seconds) s")
        #expect(pushing.outbox.keptCount == 1, "a receipt that got no answer is worth sending again")
    }
}

extension Duration {
    /// Whole seconds.
    fileprivate var seconds: Int64 { components.seconds }
}
