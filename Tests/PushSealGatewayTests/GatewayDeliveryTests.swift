import Foundation
import PushSealCore
import PushSealDelivery
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// End to end with the strict HTTP/2 mock APNs: sealing per device, delivery, pruning, and what
/// the database holds (gateway-v1.md).
@Suite("pushseal-gateway delivery", .serialized)
struct GatewayDeliveryTests {
    static let alert =
        #"{"aps":{"alert":{"title":"Order 1042","body":"Your parcel code is 7734-XQ"}},"note":"private-note-5521"}"#

    @Test(
        "a user with three devices (X25519 and P-256) gets one push: each body opens with that device's store, in Swift and in Python",
        arguments: GatewayBackend.allCases
    )
    func threeDevices(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        let tokens = (1...3).map { GatewayWorld.deviceToken("00aa", $0) }
        try world.registerDevice("a", user: "u1", suite: "x25519", token: tokens[0])
        try world.registerDevice("b", user: "u1", suite: "x25519", token: tokens[1])
        try world.registerDevice("c", user: "u1", suite: "p256", token: tokens[2])
        let answer = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        #expect(answer.status == 202 && answer.json?["deliveries"] == .number(JSONNumber(3)))
        #expect(world.eventually { world.apns.requests().count == 3 })
        let python = try PythonPeer.interpreter.get()
        let script = PythonPeer.directory.appendingPathComponent("pushseal.py").path
        var eventIDs = Set<String>()
        for (index, id) in ["a", "b", "c"].enumerated() {
            let request = try #require(world.apns.requests().first { $0["token"] as? String == tokens[index] })
            let body = try #require(request["body"] as? String)
            #expect(!body.contains("7734-XQ") && !body.contains("private-note"), "APNs sees no content")
            let opened = try CLIRunner.run(
                ["decrypt", "--store", "store-\(id)"], input: Data(body.utf8), in: world.directory.path)
            let line = try #require(try JSONParser.parse(opened.output.trimmingCharacters(in: .newlines)).objectValue)
            #expect(
                line["status"] == .string("decrypted") && line["mode"] == .string("auth"), "\(id): \(opened.output)")
            let notification = line["notification"]?.objectValue
            #expect(notification?["body"] == .string("Your parcel code is 7734-XQ"))
            if let eventID = notification?["userInfo"]?.objectValue?["event_id"]?.stringValue {
                eventIDs.insert(eventID)
            }
            let peer = try CLIRunner.run(
                executable: python, [script, "open", "--store", world.directory.file("store-\(id)")],
                input: Data(body.utf8), in: world.directory.path)
            #expect(peer.status == 0 && peer.output.contains("7734-XQ"), "Python opens \(id): \(peer.errors)")
        }
        #expect(eventIDs.count == 1, "one event_id for the push, on every device")
    }

    @Test(
        "one slow answer holds no other: the quick deliveries of the same push are recorded sent while it waits",
        arguments: GatewayBackend.allCases)
    func slowAnswer(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        // The mock answers a token starting 51ee three seconds late; the slow device is claimed first.
        try world.registerDevice("a-slow", user: "u1", token: GatewayWorld.deviceToken("51ee", 0))
        for index in 1...20 {
            try world.registerDevice("quick-\(index)", user: "u1", token: GatewayWorld.deviceToken("00aa", index))
        }
        let started = ContinuousClock.now
        let answer = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        let id = try #require(answer.json?["id"]?.stringValue)
        #expect(
            try world.eventually {
                try world.store.push(id: id, in: .default)?.deliveries.filter { $0.status == .sent }.count == 20
            })
        let quickly = ContinuousClock.now - started
        let states = try #require(try world.store.push(id: id, in: .default)).deliveries
        #expect(states.first { $0.deviceID == "a-slow" }?.status == .queued, "the slow answer is still awaited")
        #expect(quickly < .milliseconds(2_500), "the quick ones were recorded in \(quickly), not after the slow one")
        #expect(
            try world.eventually {
                try world.store.push(id: id, in: .default)?.deliveries.allSatisfy { $0.status == .sent } == true
            })
    }

    @Test(
        "410 marks a device unregistered and later pushes skip it; one that registered after APNs' timestamp is kept",
        arguments: GatewayBackend.allCases)
    func pruning(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        let gone = GatewayWorld.deviceToken("0411", 1)
        let stale = GatewayWorld.deviceToken("0410", 2)
        let bad = GatewayWorld.deviceToken("0400", 3)
        try world.registerDevice("gone", user: "u1", token: gone)
        try world.registerDevice("stale", user: "u1", token: stale)
        try world.registerDevice("bad", user: "u1", token: bad)
        try world.registerDevice("ok", user: "u1", token: GatewayWorld.deviceToken("00aa", 4))
        let first = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        let id = try #require(first.json?["id"]?.stringValue)
        #expect(try world.eventually { try world.hasEnded(push: id) })
        let states = Dictionary(
            uniqueKeysWithValues: try #require(try world.store.push(id: id, in: .default)).deliveries.map {
                ($0.deviceID, $0)
            })
        #expect(states["gone"]?.status == .unregistered && states["gone"]?.reason == "Unregistered")
        #expect(states["bad"]?.status == .unregistered && states["bad"]?.reason == "BadDeviceToken")
        #expect(states["stale"]?.status == .unregistered, "this push's delivery is over")
        #expect(states["ok"]?.status == .sent)
        #expect(try world.store.device(id: "gone", in: .default)?.unregisteredAt != nil)
        #expect(try world.store.device(id: "bad", in: .default)?.unregisteredAt != nil)
        #expect(
            try world.store.device(id: "stale", in: .default)?.unregisteredAt == nil,
            "registered after APNs' timestamp: kept")

        let second = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        #expect(second.json?["deliveries"] == .number(JSONNumber(2)), "gone and bad are skipped")
        let device = try world.request("GET", "/v1/devices/gone", token: world.adminToken)
        #expect(device.json?["state"] == .string("unregistered"))
        try world.registerDevice("gone", user: "u1", token: gone)
        #expect(
            try world.store.device(id: "gone", in: .default)?.unregisteredAt == nil, "registering again clears the mark"
        )
    }

    @Test(
        "a transient failure (503 every time) stays queued for a later attempt, in the outbox, not in a worker",
        arguments: GatewayBackend.allCases)
    func durableRetry(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        try world.registerDevice("busy", user: "u1", token: GatewayWorld.deviceToken("5003", 1))
        let answer = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        let id = try #require(answer.json?["id"]?.stringValue)
        #expect(
            try world.eventually(20) { try world.store.push(id: id, in: .default)?.deliveries.first?.attempts == 2 },
            "the client's one retry, then back to the outbox")
        let delivery = try #require(try world.store.push(id: id, in: .default)?.deliveries.first)
        #expect(delivery.status == .queued && delivery.reason == "ServiceUnavailable")
        Thread.sleep(forTimeInterval: 1)
        #expect(world.apns.requests().count == 2, "not retried before its time (30 s or more)")
    }

    @Test("only a transient failure is retried, and only up to the limit")
    func retryDecisions() {
        var transient = DeliveryResult(
            line: 0, status: .failed, apnsID: nil, reason: "TooManyRequests", attempts: 2, timestamp: nil)
        transient.transient = true
        let permanent = DeliveryResult(
            line: 0, status: .failed, apnsID: nil, reason: "PayloadTooLarge", attempts: 1, timestamp: nil)
        guard case .retry(let due, _) = APNsSender.outcome(transient, attempts: 2, acceptedAt: 0, at: 1_000) else {
            Issue.record("not retried")
            return
        }
        let earliest: Int64 = 1_000 + 60_000
        let latest: Int64 = 1_000 + 120_000
        #expect(due >= earliest && due <= latest, "30 s doubled twice, jittered into its upper half")
        #expect(
            APNsSender.outcome(transient, attempts: 12, acceptedAt: 0, at: 0)
                == .failed(reason: DeliveryReason(text: "TooManyRequests")))
        #expect(
            APNsSender.outcome(permanent, attempts: 1, acceptedAt: 0, at: 0)
                == .failed(reason: DeliveryReason(text: "PayloadTooLarge")))
    }

    @Test("a refused provider token holds the delivery: retried with backoff past the attempt limit, for 24 hours")
    func providerTokenHold() {
        let refused = DeliveryResult(
            line: 0, status: .failed, apnsID: nil, reason: "InvalidProviderToken", attempts: 1, timestamp: nil)
        guard case .retry(let due, let reason) = APNsSender.outcome(refused, attempts: 1, acceptedAt: 0, at: 1_000)
        else {
            Issue.record("a refused provider token failed the delivery")
            return
        }
        #expect(reason == .apns("InvalidProviderToken") && (16_000...31_000).contains(due), "30 s, jittered: \(due)")
        let hour: Int64 = 3_600_000
        guard case .retry(let later, _) = APNsSender.outcome(refused, attempts: 40, acceptedAt: 0, at: hour) else {
            Issue.record("the hold ended at the transient limit")
            return
        }
        #expect((hour + 300_000...hour + 600_000).contains(later), "held an hour: 10 minutes apart: \(later)")
        guard case .retry(let quarter, _) = APNsSender.outcome(refused, attempts: 1, acceptedAt: 0, at: 600_000) else {
            Issue.record("a refused provider token failed the delivery")
            return
        }
        #expect((750_000...900_000).contains(quarter), "held 10 minutes: half of that: \(quarter)")
        // The refused requests are not counted: after a hold, a transient failure is retried.
        #expect(APNsSender.countedAttempts(refused, before: 3) == 3)
        let transient = DeliveryResult(
            line: 0, status: .failed, apnsID: nil, reason: "ServiceUnavailable", attempts: 1, timestamp: nil,
            transient: true)
        #expect(APNsSender.countedAttempts(transient, before: 3) == 4)
        let expired = DeliveryResult(
            line: 0, status: .failed, apnsID: nil, reason: "ExpiredProviderToken", attempts: 1, timestamp: nil)
        #expect(
            APNsSender.outcome(expired, attempts: 1, acceptedAt: 0, at: 1_000)
                != .failed(reason: DeliveryReason(text: "ExpiredProviderToken")))
        let day = RetrySchedule.providerTokenHold
        #expect(
            APNsSender.outcome(refused, attempts: 5, acceptedAt: 0, at: day)
                == .failed(reason: DeliveryReason(text: "InvalidProviderToken")),
            "after 24 hours the delivery fails with the reason")
    }

    @Test(
        "a refused provider token keeps deliveries queued; once APNs takes the key, the held delivery is sent",
        arguments: GatewayBackend.allCases)
    func providerTokenRefusedThenFixed(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        try world.registerDevice("revoked", user: "u1", token: GatewayWorld.deviceToken("4031", 1))
        try world.registerDevice("activating", user: "u1", token: GatewayWorld.deviceToken("4032", 2))
        let answer = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        let id = try #require(answer.json?["id"]?.stringValue)
        #expect(
            try world.eventually(20) {
                try world.store.push(id: id, in: .default)?.deliveries.allSatisfy {
                    $0.reason == "InvalidProviderToken" && $0.status == .queued
                } == true
            }, "held, not failed")
        let held = try #require(try world.store.push(id: id, in: .default)?.deliveries)
        #expect(held.allSatisfy { $0.attempts == 0 }, "a request refused for the provider token is not counted")
        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        #expect(
            metrics.contains(
                #"pushseal_gateway_deliveries_total{app="default",status="queued",reason="InvalidProviderToken"} 2"#))
        // Logged as an error for the operator, where an ordinary retry is information.
        let heldLines = world.logged("queued").filter { $0["reason"] == .string("InvalidProviderToken") }
        #expect(heldLines.count == 2 && heldLines.allSatisfy { $0["level"] == .string("error") }, "\(heldLines)")
        Thread.sleep(forTimeInterval: 1)
        #expect(world.apns.requests().count == 2, "held for 30 s or so, not hammered")

        try world.makeDueNow(push: id)
        #expect(
            try world.eventually(20) {
                try world.store.push(id: id, in: .default)?.deliveries.first { $0.deviceID == "activating" }?.status
                    == .sent
            }, "the key became valid: the held delivery went out")
        let revoked = try #require(
            try world.store.push(id: id, in: .default)?.deliveries.first { $0.deviceID == "revoked" })
        #expect(
            revoked.status == .queued && revoked.attempts == 0 && world.apns.requests().count >= 4,
            "still refused: still held")
    }

    @Test(
        "no plaintext at rest: the database files (with WAL) hold no alert text or custom value",
        arguments: GatewayBackend.allCases)
    func noPlaintextAtRest(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        try world.registerDevice("a", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        for _ in 0..<5 {
            let answer = try world.request(
                "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
            #expect(answer.status == 202)
        }
        var found: [String] = []
        var control = false
        for file in try Self.databaseFiles(world) {
            // The shared PostgreSQL server may remove a file between the listing and the read (a
            // relation cache's init file, another test's database): it holds nothing of ours then.
            guard let bytes = try Self.contentsIfPresent(file) else { continue }
            for secret in ["7734-XQ", "private-note-5521", "Order 1042"] where bytes.range(of: Data(secret.utf8)) != nil
            {
                found.append("\(file): \(secret)")
            }
            // The device's token is stored in clear: finding it shows that the search sees the data.
            control = control || bytes.range(of: Data(GatewayWorld.deviceToken("00aa", 1).utf8)) != nil
            let attributes = try? FileManager.default.attributesOfItem(atPath: file)
            if attributes == nil && !FileManager.default.fileExists(atPath: file) { continue }
            let mode = attributes?[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file) is \(String(mode ?? 0, radix: 8))")
        }
        #expect(control, "the search found the device token, stored in clear")
        #expect(found.isEmpty, "\(found)")
    }

    /// The bytes of `file`, or nil when it no longer exists; any other failure is thrown.
    static func contentsIfPresent(_ file: String) throws -> Data? {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: file))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        }
    }

    /// The files that hold `world`'s database: the SQLite file with its WAL, or every file of the
    /// test PostgreSQL server (tables and write-ahead log).
    static func databaseFiles(_ world: GatewayWorld) throws -> [String] {
        switch world.backend {
        case .sqlite:
            return try FileManager.default.contentsOfDirectory(atPath: world.directory.path)
                .filter { $0.hasPrefix("gateway.db") }.map(world.directory.file)
        case .postgres:
            let root = try PostgresTestServer.shared.get().dataDirectory
            let enumerator = FileManager.default.enumerator(atPath: root)
            var files: [String] = []
            while let path = enumerator?.nextObject() as? String {
                let full = "\(root)/\(path)"
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue,
                    path.hasPrefix("base/") || path.hasPrefix("pg_wal/")
                {
                    files.append(full)
                }
            }
            return files
        }
    }
}
