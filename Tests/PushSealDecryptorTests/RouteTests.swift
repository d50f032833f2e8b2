import Foundation
import PushSealCore
import PushSealEncryptor
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

@Suite("Routes on the device, and the inbox")
struct RouteTests {
    static let contract: PayloadContract = {
        // swift-format-ignore: NeverUseForceTry
        try! PayloadContract(
            json: Array(
                #"""
                {"schema_versions":[1,2],"routes":{"order":{"id":"uuid","thread-id":"order:{id}"},
                 "invoice":{"id":"integer"},"chat":{"id":"token"},"inbox":{}}}
                """#.utf8))
    }()

    static func route(_ type: String, _ id: String?, event: String) -> Route {
        Route(type: type, id: id, schemaVersion: 1, eventID: event)
    }

    @Test("decrypted content gets its route, or its route error; unsealed and degraded payloads get none")
    func decryptedOnly() throws {
        let device = try Device()
        let decryptor = Decryptor(keyStore: device.store, ledger: device.store.ledger, contract: Self.contract)
        let good = #"{"aps":{"alert":"x"},"type":"invoice","id":12,"event_id":"e-1","schema_version":2}"#
        let result = decryptor.open(try device.seal(good))
        #expect(result.route == .route(Route(type: "invoice", id: "12", schemaVersion: 2, eventID: "e-1")))
        #expect(result.duplicate == false)
        #expect(decryptor.open(try device.seal(good)).duplicate == true, "a repeat refreshes: same route, duplicate")

        let bad = #"{"aps":{"alert":"x"},"type":"invoice","id":"../admin","event_id":"e-2","schema_version":1}"#
        guard case .error(let error)? = decryptor.open(try device.seal(bad)).route else {
            Issue.record("no route error for a bad id")
            return
        }
        #expect(error.code == .badID)

        let spoofed = try #require(try JSONParser.parse(good).objectValue)
        #expect(decryptor.open(spoofed).status == .plain)
        #expect(decryptor.open(spoofed).route == nil, "an unsealed payload never yields a route")
        var tampered = try device.seal(good)
        tampered["enc"] = .string("AQEA")
        #expect(decryptor.open(tampered).route == nil, "a degraded payload never yields a route")
        #expect(device.decryptor.open(try device.seal(good)).route == nil, "no contract, no route")
    }

    /// A small deterministic generator, so that a failure can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    @Test("property: whatever the server side accepts under a contract, the device routes under it, to the same route")
    func serverAndDeviceAgree() throws {
        let device = try Device()
        let decryptor = Decryptor(keyStore: device.store, contract: Self.contract)
        var random = SeededGenerator(state: 2_026_12_01)
        let alphabet = Array("abcXYZ019_-")
        var accepted = 0
        for iteration in 0..<300 {
            var payload = JSONObject([("aps", .object(JSONObject([("alert", .string("n\(iteration)"))])))])
            let type = ["order", "invoice", "chat", "inbox", "unknown"].randomElement(using: &random)!
            payload["type"] = .string(type)
            // Mostly an id of the type's kind, sometimes another kind, junk or none.
            let kind = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0..<5, using: &random) : nil
            switch kind ?? ["order": 0, "invoice": 1, "chat": 2][type] ?? 4 {
            case 0: payload["id"] = .string(UUID().uuidString)
            case 1: payload["id"] = .number(JSONNumber(Int.random(in: 0..<1_000_000, using: &random)))
            case 2:
                let length = Int.random(in: 1..<70, using: &random)
                payload["id"] = .string(String((0..<length).map { _ in alphabet.randomElement(using: &random)! }))
            case 3: payload["id"] = .string("https://evil.example/\(iteration)")
            default: break
            }
            if Bool.random(using: &random) { payload["event_id"] = .string("evt-\(iteration)") }
            payload["schema_version"] = .number(JSONNumber(Int.random(in: 0..<5, using: &random) == 0 ? 3 : 1))
            if Int.random(in: 0..<4, using: &random) == 0 { payload["note"] = .string("see https://x/\(iteration)") }
            let prepared: ContractedPayload
            do {
                prepared = try Self.contract.prepareForSealing(payload, addingEventID: Bool.random(using: &random))
            } catch {
                continue
            }
            accepted += 1
            let sealed = try Encryptor(recipient: device.recipient, sender: device.sender).seal(prepared.payload)
            let result = decryptor.open(try #require(try JSONParser.parse(sealed.bytes).objectValue))
            #expect(result.route == .route(prepared.route), "iteration \(iteration)")
        }
        #expect(accepted > 100, "the generator produced too few valid payloads (\(accepted))")
    }

    @Test("the inbox hands a route out once; the same event_id is delivered once")
    func inboxOnce() {
        let inbox = RouteInbox()
        #expect(inbox.consume() == nil)
        #expect(inbox.enqueue(Self.route("order", "a", event: "e1")))
        #expect(!inbox.enqueue(Self.route("order", "a", event: "e1")), "a redelivery is not enqueued again")
        #expect(inbox.consume() == Self.route("order", "a", event: "e1"))
        #expect(inbox.consume() == nil, "a second consume gives nothing")
        #expect(!inbox.enqueue(Self.route("order", "a", event: "e1")), "nor after it was consumed")
        #expect(inbox.enqueue(Self.route("chat", "b", event: "e2")))
        #expect(inbox.enqueue(Self.route("chat", "c", event: "e3")))
        #expect(inbox.consume()?.eventID == "e3", "the newest tap wins")
        let small = RouteInbox(memory: 2)
        for event in ["a", "b", "c"] { small.enqueue(Self.route("inbox", nil, event: event)) }
        #expect(small.enqueue(Self.route("inbox", nil, event: "a")), "memory is bounded: the oldest is forgotten")
    }

    @Test("racing threads: each event_id is enqueued once, and each route is consumed at most once")
    func inboxRaces() {
        let inbox = RouteInbox(memory: 10_000)
        let enqueued = Protected<[String]>([])
        let consumed = Protected<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in 0..<500 {
                // Every worker offers the same 500 events; only one offer of each may win.
                if inbox.enqueue(Self.route("inbox", nil, event: "e\(index)")) {
                    enqueued.withLock { $0.append("e\(index)") }
                }
                if worker % 2 == 0, let route = inbox.consume() { consumed.withLock { $0.append(route.eventID) } }
            }
        }
        if let last = inbox.consume() { consumed.withLock { $0.append(last.eventID) } }
        let offers = enqueued.withLock { $0 }
        let taken = consumed.withLock { $0 }
        #expect(offers.count == 500 && Set(offers).count == 500)
        #expect(taken.count == Set(taken).count, "a route was consumed twice")
        #expect(Set(taken).isSubset(of: Set(offers)))
    }
}
