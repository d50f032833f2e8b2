import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Synchronization
import Testing

@testable import PushSealGateway

/// Accepting a push as a use case, with no HTTP around it: a store, a sealer, a limiter.
@Suite("accepting a push, apart from HTTP")
struct PushAcceptorTests {
    /// An acceptor over a new store of `backend`, its deliveries limited as `limits` says; the
    /// kinds it woke, and the limits it refused, recorded.
    final class Accepting: Sendable {
        /// What the acceptor called back with.
        final class Calls: Sendable {
            let woken = Mutex<[Set<DeliveryKind>]>([])
            let refused = Mutex<[RateLimit]>([])
        }

        let directory = TemporaryDirectory()
        let store: any GatewayStore
        let acceptor: PushAcceptor
        let calls = Calls()
        let deviceKey: PrivateKey

        init(_ backend: GatewayBackend, maximumDeliveries: Int = 100, limits: String? = nil) throws {
            store = try GatewayStoreTests.store(backend, in: directory)
            let sender = try PrivateKey.generate(suite: .x25519, kid: "sender")
            deviceKey = try PrivateKey.generate(suite: .x25519, kid: "device")
            let settings = try RateLimitSettings(limits.map { try JSONParser.parse(Array($0.utf8)) }, at: .root)
            let calls = calls
            acceptor = PushAcceptor(
                store: store, sealer: PushSealer(senders: [sender], contract: nil, subscriptionContent: nil),
                maximumDeliveriesPerPush: maximumDeliveries,
                limiter: RateLimiter(settings) { limit in calls.refused.withLock { $0.append(limit) } },
                metrics: Metrics(),
                log: EventLog(enabled: false), onAccepted: { kinds in calls.woken.withLock { $0.append(kinds) } })
        }

        /// Registers `id` of user `user`, marked unregistered when `gone`.
        func register(_ id: String, user: String, gone: Bool = false) throws {
            let jwk = JSONWriter.string(.object(try #require(deviceKey.publicKey).jwk))
            _ = try store.putDevice(
                Device(
                    app: .default, id: id, user: user,
                    channel: .apns(
                        token: String(repeating: "ab", count: 32), topic: "com.example.shop", environment: .production,
                        publicKeyJWK: jwk),
                    registeredAt: 100, unregisteredAt: gone ? 200 : nil))
        }

        /// Accepts the push `json` for `token`.
        func accept(_ json: String, token: String = "t1") throws -> PushAcceptor.Accepted {
            let body = try #require(try JSONParser.parse(Array(json.utf8)).objectValue)
            return try acceptor.accept(try PushRequest(body), in: .default, requestBody: body, token: token)
        }
    }

    static func push(_ user: String, key: String? = nil, body: String = "Shipped") -> String {
        let idempotency = key.map { #","idempotency_key":"\#($0)""# } ?? ""
        return #"{"to":{"user":"\#(user)"},"payload":{"aps":{"alert":{"body":"\#(body)"}}}\#(idempotency)}"#
    }

    @Test(
        "a push is stored with one delivery per device it names, each once, and wakes the APNs workers",
        arguments: GatewayBackend.allCases)
    func accepted(_ backend: GatewayBackend) throws {
        let accepting = try Accepting(backend)
        try accepting.register("phone", user: "u1")
        try accepting.register("tablet", user: "u1")
        let accepted = try accepting.accept(
            #"{"to":{"devices":["phone","tablet","phone","unknown"]},"payload":{"aps":{"alert":"hi"}}}"#)
        #expect(accepted.deliveries == 2 && !accepted.repeated && accepted.truncated == 0, "\(accepted)")
        let stored = try #require(try accepting.store.push(id: accepted.id, in: .default))
        #expect(stored.deliveries.map(\.deviceID).sorted() == ["phone", "tablet"], "a device named twice gets one")
        #expect(stored.deliveries.allSatisfy { $0.status == .queued })
        #expect(accepting.calls.woken.withLock { $0 } == [[.apns]])
    }

    @Test(
        "the same idempotency key and request is a repeat: the earlier push, nothing stored, its deliveries refunded; another request with the key is refused",
        arguments: GatewayBackend.allCases)
    func idempotency(_ backend: GatewayBackend) throws {
        let accepting = try Accepting(backend, limits: #"{"deliveries_per_second": 1, "deliveries_burst": 2}"#)
        try accepting.register("phone", user: "u1")
        let first = try accepting.accept(Self.push("u1", key: "k-1"))
        let again = try accepting.accept(Self.push("u1", key: "k-1"))
        #expect(again == PushAcceptor.Accepted(id: first.id, deliveries: 1, repeated: true, truncated: 0))
        #expect(accepting.calls.woken.withLock { $0.count } == 1, "a repeat wakes nobody")
        #expect(throws: APIError.self) { try accepting.accept(Self.push("u1", key: "k-1", body: "Other")) }
        // Of the burst of two, the first push spent one; the repeat and the conflict gave theirs back.
        _ = try accepting.accept(Self.push("u1"))
        #expect(accepting.calls.refused.withLock { $0 }.isEmpty)
        #expect(throws: APIError.self) { try accepting.accept(Self.push("u1")) }
        #expect(accepting.calls.refused.withLock { $0 } == [.deliveries], "and now the burst is spent")
        #expect(try accepting.store.statistics().deliveries[.queued] == 2, "two pushes stored, of five asked")
        // At the limit, a retry of an accepted push still gets that push: it costs nothing.
        let retried = try accepting.accept(Self.push("u1", key: "k-1"))
        #expect(retried == PushAcceptor.Accepted(id: first.id, deliveries: 1, repeated: true, truncated: 0))
        #expect(accepting.calls.refused.withLock { $0 } == [.deliveries], "the retry was not refused")
    }

    @Test(
        "over the cap or the rate, a push is refused before anything is sealed or stored; the rate's refusal is counted",
        arguments: GatewayBackend.allCases)
    func refusals(_ backend: GatewayBackend) throws {
        let accepting = try Accepting(
            backend, maximumDeliveries: 2, limits: #"{"deliveries_per_second": 1, "deliveries_burst": 2}"#)
        for device in ["a", "b", "c"] { try accepting.register(device, user: "three") }
        try accepting.register("d", user: "two")
        try accepting.register("e", user: "two")
        do {
            _ = try accepting.accept(Self.push("three"))
            Issue.record("three deliveries passed a cap of two")
        } catch let error as APIError {
            #expect(error.status == 422, "\(error)")
        }
        _ = try accepting.accept(Self.push("two"))
        do {
            _ = try accepting.accept(Self.push("two"))
            Issue.record("the burst of two was spent twice")
        } catch let error as APIError {
            #expect(error.status == 429, "\(error)")
        }
        #expect(accepting.calls.refused.withLock { $0 } == [.deliveries])
        #expect(try accepting.store.statistics().deliveries[.queued] == 2, "only the one push within both was stored")
    }
}
