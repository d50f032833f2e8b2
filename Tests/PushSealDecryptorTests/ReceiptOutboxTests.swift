import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

/// The receipts a device keeps until they are sent (ios.md, "Receipts"), against a recorded
/// transport: what is kept, what is dropped, and the batches that send it.
@Suite("Receipt outbox")
struct ReceiptOutboxTests {
    /// What the transport was asked, and answers it gives by URL (else `answer`).
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var sent: [(url: String, body: JSONObject)] = []
        var answer: Result<Int, ReceiptPostFailure>
        var answers: [String: Int] = [:]

        init(_ answer: Result<Int, ReceiptPostFailure>) { self.answer = answer }

        var requests: [(url: String, body: JSONObject)] { lock.withLock { sent } }

        var poster: ReceiptPoster {
            ReceiptPoster { url, _, body, _ in
                self.lock.withLock {
                    self.sent.append((url, (try? JSONParser.parse(body))?.objectValue ?? JSONObject()))
                    return self.answers[url].map { .success($0) } ?? self.answer
                }
            }
        }
    }

    /// A degraded result carrying a failure ticket of gateway `host`.
    static func degraded(host: String = "push.example.com") throws -> (DecryptionResult, ReceiptTicket) {
        let delivery = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(22)
        let ticket = try ReceiptTicket.make(url: "https://\(host)/v1/receipts/\(delivery)").ticket
        let payload = JSONObject([
            ("aps", .object(JSONObject([("alert", .string("Open the app to view it."))]))),
            (ReceiptTicket.member, .object(ticket.json)),
        ])
        return (DecryptionResult.asArrived(payload, reason: .unknownKey), ticket)
    }

    static func store() throws -> (TemporaryDirectory, FileKeyStore) {
        let temporary = TemporaryDirectory()
        return (temporary, try FileKeyStore.initialize(directory: temporary.file("store")))
    }

    @Test("a receipt that got no answer, a 429 or a 5xx is kept; one answered 204, 404 or 400 is not")
    func whatIsKept() throws {
        let (temporary, store) = try Self.store()
        defer { withExtendedLifetime(temporary) {} }
        for (answer, kept) in [
            (Result<Int, ReceiptPostFailure>.success(204), 0), (.success(404), 0), (.success(400), 0),
            (.success(429), 1), (.success(503), 2), (.failure(ReceiptPostFailure(unsent: "unreachable")), 3),
        ] {
            let outbox = ReceiptOutbox(store: store, poster: Recorder(answer).poster)
            let taken = outbox.report(try Self.degraded().0, deadline: .now + .seconds(1))
            #expect(taken == ((try? answer.get()) == 204))
            #expect(outbox.keptCount == kept, "\(answer)")
        }
        #expect(
            ReceiptOutbox(store: nil, poster: Recorder(.success(503)).poster)
                .report(try Self.degraded().0, deadline: .now + .seconds(1)) == false,
            "no container: nowhere to keep it, and nothing breaks")
    }

    @Test("at most 100 receipts are kept, the oldest dropped; a file that does not parse is started afresh")
    func bounded() throws {
        let (temporary, store) = try Self.store()
        defer { withExtendedLifetime(temporary) {} }
        let outbox = ReceiptOutbox(store: store, poster: Recorder(.success(503)).poster)
        var tickets: [ReceiptTicket] = []
        for _ in 0..<105 {
            let (result, ticket) = try Self.degraded()
            tickets.append(ticket)
            outbox.keep(result)
        }
        #expect(outbox.keptCount == ReceiptOutbox.capacity)
        let text = try String(contentsOfFile: store.directory + "/receipts.json", encoding: .utf8)
        #expect(!text.contains(tickets[4].deliveryID) && text.contains(tickets[5].deliveryID), "the oldest went")

        try "{not json".write(toFile: store.directory + "/receipts.json", atomically: false, encoding: .utf8)
        chmod(store.directory + "/receipts.json", 0o600)
        #expect(outbox.keptCount == 0)
        outbox.keep(try Self.degraded().0)
        #expect(outbox.keptCount == 1)
    }

    @Test("flush sends one batch per gateway to its receipts URL; what a gateway answered goes, the rest stays")
    func batches() throws {
        let (temporary, store) = try Self.store()
        defer { withExtendedLifetime(temporary) {} }
        let recorder = Recorder(.success(503))
        let outbox = ReceiptOutbox(store: store, poster: recorder.poster)
        var first: [ReceiptTicket] = []
        for host in ["a.example", "a.example", "b.example"] {
            let (result, ticket) = try Self.degraded(host: host)
            if host == "a.example" { first.append(ticket) }
            outbox.keep(result)
        }
        recorder.answers = ["https://a.example/v1/receipts": 200]
        #expect(outbox.flush(deadline: .now + .seconds(1)) == 2)
        #expect(outbox.keptCount == 1, "b's gateway answered 503: its receipt stays")
        let batch = try #require(recorder.requests.first { $0.url == "https://a.example/v1/receipts" })
        let items = batch.body["receipts"].flatMap { value -> [JSONValue]? in
            if case .array(let items) = value { items } else { nil }
        }
        #expect(items?.count == 2)
        let item = try #require(items?.first?.objectValue)
        #expect(item["delivery"] == .string(first[0].deliveryID))
        #expect(item["capability"]?.stringValue.map { "Bearer " + $0 } == first[0].authorization)
        #expect(item["outcome"] == .string("degraded") && item["reason"] == .string("unknown-key"))
        #expect(recorder.requests.contains { $0.url == "https://b.example/v1/receipts" })
    }
}
