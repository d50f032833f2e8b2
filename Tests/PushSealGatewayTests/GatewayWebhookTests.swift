import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// Webhooks (gateway-v1.md, "Webhooks"): events of deliveries' ends and of devices that left,
/// queued with the outcome, signed as Standard Webhooks does it and verified by its reference
/// library from PyPI (`webhook_receiver.py`), retried with backoff, batched, and an endpoint that
/// fails too long disabled.
@Suite("pushseal-gateway webhooks", .serialized)
struct GatewayWebhookTests {
    static let alert =
        #"{"aps":{"alert":{"title":"Order 1042","body":"Your parcel code is 7734-XQ"}},"note":"private-note-5521"}"#

    /// A webhook secret file in `directory`, 0600, and the secret.
    static func secretFile(_ name: String, in directory: TemporaryDirectory) throws -> String {
        let secret = WebhookSigner.newSecret()
        let path = try directory.write(name, secret + "\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return secret
    }

    /// A receiver (`webhook_receiver.py`) that verifies with the secrets of `files`, then those of
    /// `strangers` (the indices of its log, in that order), and a gateway whose one endpoint,
    /// `backend`, posts to the receiver's `script` URL signed with the files' secrets (its app with
    /// `appSettings`). The receiver stops with it, and its log goes with it: keep it alive while
    /// reading.
    final class Hooked {
        let secrets: TemporaryDirectory
        let receiverDirectory = TemporaryDirectory()
        let receiver: WebhookReceiver
        let world: GatewayWorld

        init(
            _ backend: GatewayBackend = .sqlite, script: String = "ok", files: [String] = ["whsec-old"],
            strangers: [String] = [], extra: String = "", appSettings: String? = nil
        ) throws {
            let secrets = TemporaryDirectory()
            let made = try files.map { try GatewayWebhookTests.secretFile($0, in: secrets) }
            receiver = try WebhookReceiver(secrets: made + strangers, in: receiverDirectory)
            let names = files.map { "\"\(secrets.file($0))\"" }.joined(separator: ", ")
            world = try GatewayWorld(
                backend,
                settings: """
                    "webhooks": [{"name": "backend", "url": "\(receiver.url(script))", "secret_files": [\(names)],
                                  "allow_local_destinations": true, "ca_file": "\(receiver.certificate)"\(extra)}]
                    """, appSettings: appSettings)
            self.secrets = secrets
        }

        deinit { receiver.stop() }
    }

    /// The events the receiver got, flattened out of batches, in arrival order.
    static func events(_ receiver: WebhookReceiver) -> [[String: Any]] {
        receiver.requests().filter { $0["status"] as? Int == 204 }.flatMap { request -> [[String: Any]] in
            guard let body = request["body"] as? [String: Any] else { return [] }
            if body["type"] as? String == "batch" {
                return (body["data"] as? [String: Any])?["events"] as? [[String: Any]] ?? []
            }
            return [body]
        }
    }

    @Test(
        "a push's ends and a device that left reach the receiver, signed with both secrets of a rotation, without content",
        arguments: GatewayBackend.allCases)
    func eventsReachTheReceiver(_ backend: GatewayBackend) throws {
        let hooked = try Hooked(backend, files: ["whsec-old", "whsec-new"], strangers: [WebhookSigner.newSecret()])
        let (world, receiver) = (hooked.world, hooked.receiver)
        defer { withExtendedLifetime(hooked) {} }  // its directories hold the receiver's log
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        try world.registerDevice("old-phone", user: "u1", token: GatewayWorld.deviceToken("0411", 2))
        let answer = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        let push = try #require(answer.json?["id"]?.stringValue)
        #expect(world.eventually { Self.events(receiver).count >= 3 })
        let events = Self.events(receiver)
        let byType = Dictionary(grouping: events) { $0["type"] as? String ?? "" }
        #expect(byType.keys.sorted() == ["delivery.sent", "delivery.unregistered", "device.unregistered"])
        let sent = try #require(byType["delivery.sent"]?.first?["data"] as? [String: Any])
        #expect(
            sent["push"] as? String == push && sent["device"] as? String == "phone" && sent["user"] as? String == "u1")
        #expect(sent["status"] as? String == "sent" && (sent["apns_id"] as? String)?.isEmpty == false)
        let gone = try #require(byType["delivery.unregistered"]?.first?["data"] as? [String: Any])
        #expect(gone["device"] as? String == "old-phone" && gone["reason"] as? String == "Unregistered")
        let left = try #require(byType["device.unregistered"]?.first?["data"] as? [String: Any])
        #expect(left["device"] as? String == "old-phone" && left["user"] as? String == "u1")
        #expect(left["push"] as? String == push && left["unregistered_at"] is Int)
        #expect(try GatewayOpenAPITests.eventProblems(events) == "", "each event as the OpenAPI document says")
        for request in receiver.requests() {
            #expect(request["verified"] as? [Int] == [0, 1], "each secret of the rotation verifies, a stranger's none")
            let headers = try #require(request["headers"] as? [String: String])
            let body = try #require(request["body"] as? [String: Any])
            #expect(headers["webhook-id"] == body["id"] as? String)
            #expect(headers["webhook-id"]?.hasPrefix("msg_") == true)
        }
        let everything = receiver.requests().map { "\($0)" }.joined()
        for secret in ["Order 1042", "7734-XQ", "private-note-5521"] {
            #expect(!everything.contains(secret), "no content in an event")
        }
        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"pushseal_gateway_webhook_requests_total{endpoint="backend",outcome="delivered"} 3"#))
        // A second answer about the device that left does not announce it again.
        let again = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"devices":["old-phone","phone"]},"payload":\#(Self.alert)}"#,
            token: world.adminToken)
        #expect(again.status == 202)
        #expect(world.eventually { Self.events(receiver).count >= 4 })
        Thread.sleep(forTimeInterval: 1.5)
        #expect(Self.events(receiver).filter { $0["type"] as? String == "device.unregistered" }.count == 1)
    }

    @Test("a receiver that fails is tried again after a backoff, and the event arrives once it answers 2xx")
    func backoffThenDelivery() throws {
        let hooked = try Hooked(script: "fail/1", extra: #", "events": ["delivery.sent"]"#)
        let (world, receiver) = (hooked.world, hooked.receiver)
        defer { withExtendedLifetime(hooked) {} }  // its directories hold the receiver's log
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        #expect(
            try world.request(
                "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken
            ).status == 202)
        #expect(world.eventually(30) { Self.events(receiver).count == 1 })
        let requests = receiver.requests()
        #expect(requests.map { $0["status"] as? Int } == [503, 204], "\(requests)")
        let first = try #require(requests.first?["headers"] as? [String: String])
        let second = try #require(requests.last?["headers"] as? [String: String])
        #expect(first["webhook-id"] == second["webhook-id"], "a retry keeps the message id")
        let waited = (Int(second["webhook-timestamp"] ?? "") ?? 0) - (Int(first["webhook-timestamp"] ?? "") ?? 0)
        #expect((3...6).contains(waited), "the first backoff is about 5 s, not \(waited) s")
        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"pushseal_gateway_webhook_requests_total{endpoint="backend",outcome="failed"} 1"#))
    }

    @Test("with a batch size, events travel together as one batch message, each once")
    func batches() throws {
        let hooked = try Hooked(script: "ok", extra: #", "batch_size": 10, "events": ["delivery.sent"]"#)
        let (world, receiver) = (hooked.world, hooked.receiver)
        defer { withExtendedLifetime(hooked) {} }  // its directories hold the receiver's log
        for index in 1...3 {
            try world.registerDevice("phone-\(index)", user: "u1", token: GatewayWorld.deviceToken("00aa", index))
        }
        #expect(
            try world.request(
                "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken
            ).status == 202)
        #expect(world.eventually { Self.events(receiver).count >= 3 })
        Thread.sleep(forTimeInterval: 1)
        let devices = Self.events(receiver).compactMap { ($0["data"] as? [String: Any])?["device"] as? String }
        #expect(devices.sorted() == ["phone-1", "phone-2", "phone-3"], "each event once")
        for request in receiver.requests() {
            #expect((request["body"] as? [String: Any])?["type"] as? String == "batch")
            #expect((request["headers"] as? [String: String])?["webhook-id"]?.hasPrefix("msg_batch_") == true)
            #expect(request["verified"] as? [Int] == [0])
        }
    }

    @Test(
        "the outbox: events queued with the outcome, an endpoint failing too long disabled and enabled again, old events expired",
        arguments: GatewayBackend.allCases)
    func outbox(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try backend.store(try backend.newDatabase(), in: directory)
        try store.migrate()
        _ = try directory.write("whsec", WebhookSigner.newSecret())
        let settings = try GatewayConfiguration(
            json: Array(
                #"{"listen":"127.0.0.1:0","database":"sqlite:x.db","sender_key_files":["k"],"apns":{"auth_key_file":"a","key_id":"K","team_id":"T","topics":["t"]},"webhooks":[{"name":"a","url":"https://hooks.example.com/a","secret_files":["whsec"]},{"name":"b","url":"https://hooks.example.com/b","secret_files":["whsec"],"events":["device.unregistered"]}]}"#
                    .utf8), path: directory.file("gateway.json")
        ).webhooks
        let routing = WebhookRouting(settings)
        let device = Device(
            app: .default, id: "d1", user: "u1",
            channel: .webPush(endpoint: "https://push.example.com/x", p256dh: "p", auth: "a"), registeredAt: 100,
            unregisteredAt: nil)
        _ = try store.putDevice(device)
        _ = try store.acceptPush(
            id: "p1", in: .default, idempotencyKey: nil, requestHash: [], at: 200,
            deliveries: [NewDelivery(device: device, headers: [], body: [1], expiration: nil)])
        let claimed = try store.claimDeliveries(
            .webPush, from: [.default], limit: 10, at: 300, leaseMilliseconds: 1_000, owner: "w")
        try store.finish(
            try #require(claimed.first), .unregistered(reason: DeliveryReason(text: "HTTP 410"), timestamp: nil),
            attempts: 1, at: 400,
            routing: routing)

        func claim(_ endpoint: String, at time: Int64, expireBefore: Int64 = 0) throws -> WebhookClaim {
            try store.claimWebhookEvents(
                endpoint: endpoint, in: .default, limit: 10, at: time, expireBefore: expireBefore,
                leaseMilliseconds: 1_000,
                owner: "o")
        }
        let a = try claim("a", at: 500)
        #expect(a.events.count == 2, "endpoint a takes every type: the delivery's end and the device")
        let types = a.events.compactMap { try? JSONParser.parse($0.body).objectValue?["type"]?.stringValue }
        #expect(types == ["delivery.unregistered", "device.unregistered"])
        let b = try claim("b", at: 500)
        #expect(b.events.count == 1 && b.events[0].eventID == a.events[1].eventID, "b takes device.unregistered only")
        #expect(try claim("a", at: 600).events.isEmpty, "leased events are not claimed twice")

        // Failing since 500: still enabled a day later less a second, disabled after a day.
        let day: Int64 = 86_400_000
        let first = try store.recordWebhookAttempt(
            .failed(reason: "HTTP 500", retryAfterSeconds: nil), endpoint: "a", in: .default, sent: [a.events[0].rowID],
            unsent: [a.events[1].rowID], at: 500, disableBefore: 500 - day)
        #expect(first.failures == 1 && !first.newlyDisabled && (3_750...5_000).contains((first.retryAt ?? 0) - 500))
        #expect(try claim("a", at: 1_000).waitsUntil == first.retryAt, "the endpoint waits out its backoff")
        let retried = try claim("a", at: 500 + day - 1_000)
        #expect(retried.events.map(\.attempts) == [1, 0])
        let second = try store.recordWebhookAttempt(
            .failed(reason: "HTTP 500", retryAfterSeconds: 7_200), endpoint: "a", in: .default,
            sent: [retried.events[0].rowID],
            unsent: [retried.events[1].rowID], at: 500 + day - 1_000, disableBefore: 500 - 1_000)
        #expect(!second.newlyDisabled && second.failures == 2)
        #expect(second.retryAt == 500 + day - 1_000 + 3_600_000, "Retry-After is honoured up to an hour")
        let third = try store.recordWebhookAttempt(
            .failed(reason: "HTTP 500", retryAfterSeconds: nil), endpoint: "a", in: .default, sent: [], unsent: [],
            at: 500 + day + 1, disableBefore: 501)
        #expect(third.newlyDisabled, "failing for over a day disables it")
        let disabled = try claim("a", at: 500 + 2 * day)
        #expect(disabled.disabled && disabled.events.isEmpty)
        #expect(try store.statistics().webhookEndpointsDisabled == ["a"])
        #expect(try store.statistics().webhookEventsQueued == ["a": 2, "b": 1])
        #expect(try store.enableWebhookEndpoint("a", in: .default))
        #expect(try !store.enableWebhookEndpoint("a", in: .default), "enabling an enabled endpoint says so")
        let again = try claim("a", at: 500 + 2 * day)
        #expect(again.events.count == 2 && !again.disabled)
        let delivered = try store.recordWebhookAttempt(
            .delivered, endpoint: "a", in: .default, sent: again.events.map(\.rowID), unsent: [], at: 600 + 2 * day,
            disableBefore: 0)
        #expect(delivered.failures == 0)
        #expect(try store.statistics().webhookEventsQueued["a"] == nil)
        // b's event is past its retry window: it ends failed, unsent.
        let expired = try claim("b", at: 500 + 3 * day, expireBefore: 500 + 2 * day)
        #expect(expired.expired == 1 && expired.events.isEmpty)
        #expect(try store.deleteFinishedWebhookEvents(in: .default, endedBefore: 500 + 4 * day, limit: 100) == 3)

        // An endpoint removed from the configuration leaves its events queued: retention takes
        // them once no configured endpoint could still be trying them.
        let removed = WebhookRouting(
            try GatewayConfiguration(
                json: Array(
                    #"{"listen":"127.0.0.1:0","database":"sqlite:x.db","sender_key_files":["k"],"apns":{"auth_key_file":"a","key_id":"K","team_id":"T","topics":["t"]},"webhooks":[{"name":"removed","url":"https://hooks.example.com/r","secret_files":["whsec"]}]}"#
                        .utf8), path: directory.file("gateway.json")
            ).webhooks)
        _ = try store.acceptPush(
            id: "p2", in: .default, idempotencyKey: nil, requestHash: [], at: 10 * day,
            deliveries: [NewDelivery(device: device, headers: [], body: [1], expiration: nil)])
        _ = try store.putDevice(device)
        let later = try store.claimDeliveries(
            .webPush, from: [.default], limit: 10, at: 10 * day, leaseMilliseconds: 1_000, owner: "w")
        try store.finish(try #require(later.first), .sent(apnsID: nil), attempts: 1, at: 10 * day, routing: removed)
        let window = WebhookOutbox.longestRetryMilliseconds
        #expect(try store.deleteFinishedWebhookEvents(in: .default, endedBefore: 10 * day + window, limit: 100) == 0)
        #expect(
            try store.deleteFinishedWebhookEvents(in: .default, endedBefore: 10 * day + window + 1, limit: 100) == 1)
    }

    @Test(
        "a device is announced once however many of its queued deliveries get a 410, and keeps its first mark",
        arguments: GatewayBackend.allCases)
    func announcedOnce(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try backend.store(try backend.newDatabase(), in: directory)
        try store.migrate()
        _ = try directory.write("whsec", WebhookSigner.newSecret())
        let routing = WebhookRouting(
            try GatewayConfiguration(
                json: Array(
                    #"{"listen":"127.0.0.1:0","database":"sqlite:x.db","sender_key_files":["k"],"apns":{"auth_key_file":"a","key_id":"K","team_id":"T","topics":["t"]},"webhooks":[{"name":"a","url":"https://hooks.example.com/a","secret_files":["whsec"],"events":["device.unregistered"]}]}"#
                        .utf8), path: directory.file("gateway.json")
            ).webhooks)
        let device = Device(
            app: .default, id: "d1", user: "u1",
            channel: .apns(token: "ab", topic: "t", environment: .production, publicKeyJWK: "{}"),
            registeredAt: 100, unregisteredAt: nil)
        _ = try store.putDevice(device)
        for push in ["p1", "p2"] {
            _ = try store.acceptPush(
                id: push, in: .default, idempotencyKey: nil, requestHash: [], at: 200,
                deliveries: [NewDelivery(device: device, headers: [], body: [1], expiration: nil)])
        }
        let claimed = try store.claimDeliveries(
            .apns, from: [.default], limit: 10, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(claimed.count == 2)
        for (index, delivery) in claimed.enumerated() {
            try store.finish(
                delivery, .unregistered(reason: DeliveryReason(text: "Unregistered"), timestamp: nil), attempts: 1,
                at: 400 + Int64(index),
                routing: routing)
        }
        let events = try store.claimWebhookEvents(
            endpoint: "a", in: .default, limit: 10, at: 500, expireBefore: 0, leaseMilliseconds: 1_000, owner: "o")
        #expect(events.events.count == 1, "one device.unregistered, not one per 410")
        #expect(try store.device(id: "d1", in: .default)?.unregisteredAt == 400, "the first mark stays")
    }

    @Test("deleting a device with queued deliveries tells the endpoints, reason DeviceDeleted")
    func deletedDevice() throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteGatewayStore(path: directory.file("gateway.db"))
        try store.migrate()
        _ = try directory.write("whsec", WebhookSigner.newSecret())
        let routing = WebhookRouting(
            try GatewayConfiguration(
                json: Array(
                    #"{"listen":"127.0.0.1:0","database":"sqlite:x.db","sender_key_files":["k"],"apns":{"auth_key_file":"a","key_id":"K","team_id":"T","topics":["t"]},"webhooks":[{"name":"a","url":"https://hooks.example.com/a","secret_files":["whsec"]}]}"#
                        .utf8), path: directory.file("gateway.json")
            ).webhooks)
        let device = Device(
            app: .default, id: "d1", user: "u1",
            channel: .apns(token: "ab", topic: "t", environment: .production, publicKeyJWK: "{}"),
            registeredAt: 100, unregisteredAt: nil)
        _ = try store.putDevice(device)
        _ = try store.acceptPush(
            id: "p1", in: .default, idempotencyKey: nil, requestHash: [], at: 200,
            deliveries: [NewDelivery(device: device, headers: [], body: [1], expiration: nil)])
        #expect(try store.deleteDevice(id: "d1", in: .default, at: 500, routing: routing))
        let claim = try store.claimWebhookEvents(
            endpoint: "a", in: .default, limit: 10, at: GatewayClock.milliseconds(), expireBefore: 0,
            leaseMilliseconds: 1_000,
            owner: "o")
        let event = try #require(claim.events.first.flatMap { try? JSONParser.parse($0.body).objectValue })
        #expect(event["type"]?.stringValue == "delivery.unregistered")
        let data = try #require(event["data"]?.objectValue)
        #expect(data["reason"]?.stringValue == "DeviceDeleted" && data["user"]?.stringValue == "u1")
        #expect(data["push"]?.stringValue == "p1")
        #expect(data["finished_at"]?.numberValue?.intValue == 500, "the time the deletion was made at")
    }

    @Test(
        "a configuration's webhooks are checked: https, no local address unless allowed, a 0600 secret of the right form"
    )
    func configuration() throws {
        let directory = TemporaryDirectory()
        let good = try Self.secretFile("good", in: directory)
        #expect(good.hasPrefix("whsec_") && good.count == 6 + 44)
        func refusal(_ endpoint: String) -> String {
            let json =
                #"{"listen":"127.0.0.1:0","database":"sqlite:x.db","sender_key_files":["k"],"apns":{"auth_key_file":"a","key_id":"K","team_id":"T","topics":["t"]},"webhooks":[\#(endpoint)]}"#
            do {
                _ = try GatewayConfiguration(json: Array(json.utf8), path: directory.file("gateway.json"))
                return ""
            } catch {
                return error.description
            }
        }
        #expect(
            refusal(#"{"name":"a","url":"http://hooks.example.com/","secret_files":["good"]}"#).contains(
                "$.webhooks[0].url is not a usable https URL"))
        #expect(
            refusal(#"{"name":"a","url":"https://127.0.0.1:9/","secret_files":["good"]}"#).contains(
                "$.webhooks[0].url is a local address"))
        #expect(
            refusal(
                #"{"name":"a","url":"https://127.0.0.1:9/","secret_files":["good"],"allow_local_destinations":true}"#
            ).isEmpty)
        #expect(
            refusal(#"{"name":"a","url":"https://h.example/","secret_files":["good"],"events":["push.sent"]}"#)
                .contains(
                    "$.webhooks[0].events[0] must be one of delivery.sent"))
        #expect(
            refusal(
                #"{"name":"a","url":"https://h.example/","secret_files":["good"]},{"name":"a","url":"https://h.example/","secret_files":["good"]}"#
            ).contains("$.webhooks[1].name names another endpoint"))
        #expect(
            refusal(#"{"name":"A b","url":"https://h.example/","secret_files":["good"]}"#).contains(
                "$.webhooks[0].name"))

        #expect(throws: Never.self) { try WebhookSigner(secretFiles: [directory.file("good")]) }
        let open = try directory.write("open", WebhookSigner.newSecret())
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: open)
        #expect(String(describing: Result { try WebhookSigner(secretFiles: [open]) }).contains("chmod 600"))
        for (name, text) in [
            ("short", "whsec_" + "AAAA"), ("prefix", String(good.dropFirst(6))), ("junk", "whsec_!!!!"),
        ] {
            let path = try directory.write(name, text)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            let failure = String(describing: Result { try WebhookSigner(secretFiles: [path]) })
            #expect(failure.contains("must hold one webhook secret") && !failure.contains(text), "\(name): \(failure)")
        }
        let missingTrust = String(
            describing: Result {
                try GatewayWorld(
                    settings:
                        #""webhooks": [{"name": "a", "url": "https://h.example/", "secret_files": ["\#(directory.file("good"))"], "ca_file": "/nonexistent/ca.pem"}]"#
                )
            })
        #expect(missingTrust.contains("webhooks a: cannot load the certificates to trust"), "\(missingTrust)")
        let signer = try WebhookSigner(secretFiles: [directory.file("good"), directory.file("good")])
        let signature = signer.signature(id: "msg_1", timestamp: 1_700_000_000, body: Array("{}".utf8))
        #expect(signature.split(separator: " ").count == 2 && signature.hasPrefix("v1,"))
        #expect(!"\(signer)".contains(good.dropFirst(6).prefix(10)))
    }
}
