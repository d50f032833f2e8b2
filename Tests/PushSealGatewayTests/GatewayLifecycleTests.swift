import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The gateway as a process across its life (gateway-v1.md, "Stopping", "Backups and restores",
/// "Operations"): a drain bounded against an APNs that answers late, logs an operator can read,
/// and backups that restore.
@Suite("pushseal-gateway lifecycle", .serialized)
struct GatewayLifecycleTests {
    static let push = #"{"to":{"user":"u"},"payload":{"aps":{"alert":{"title":"Order","body":"Shipped"}}}}"#

    /// A gateway with `extra` configuration whose APNs answers `apnsDelayMilliseconds` late,
    /// started, with device `phone` registered and one push to it accepted.
    static func pushing(extra: String, apnsDelayMilliseconds: Int) throws -> GatewayProcessWorld {
        let world = try GatewayProcessWorld(extra: extra, apnsDelayMilliseconds: apnsDelayMilliseconds)
        try world.start()
        #expect(try world.registerDevice() == 201)
        #expect(try world.send("POST", "/v1/pushes", Self.push) == 202)
        return world
    }

    @Test(
        "SIGTERM: /readyz and the API answer 503 at once, the process ends by drain_seconds, and the push in flight is sent once more later"
    )
    func boundedDrain() throws {
        let world = try GatewayProcessWorld(
            extra: #", "drain_seconds": 2, "lease_seconds": 5, "access_log": true"#, apnsDelayMilliseconds: 6_000)
        try world.start()
        #expect(try world.registerDevice() == 201)
        let answer = try GatewayHTTP.send(
            "POST", "http://127.0.0.1:\(world.port)/v1/pushes", body: Data(Self.push.utf8), token: world.token)
        let id = try #require(answer?.json?["id"]?.stringValue)
        Thread.sleep(forTimeInterval: 1)  // claimed, and waiting for the late APNs
        let stopping = Date()
        world.signal(SIGTERM)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try world.send("GET", "/readyz") == 503, "draining at once")
        #expect(try world.send("POST", "/v1/pushes", Self.push) == 503, "nothing new is taken")
        #expect(world.waitForExit(seconds: 10), "the process ends")
        let took = Date().timeIntervalSince(stopping)
        #expect(took < 4, "within drain_seconds (2) and a little, not the APNs' 6 s: \(took) s")
        #expect(world.exitStatus.map { $0 & 0x7F == 0 && ($0 >> 8) & 0xFF == 0 } == true, "exit status 0")
        let lines = world.logLines()
        #expect(lines.contains { $0["event"] == .string("drain-deadline") && $0["level"] == .string("warning") })
        let stopped = try #require(lines.first { $0["event"] == .string("stopped") })
        #expect(stopped["drained"] == .bool(false) && stopped["pushes_accepted"] == .number(JSONNumber(1)))

        // The next start sends it once its lease has ended.
        try world.start()
        let database = try SQLiteGatewayStore(path: world.directory.file("gateway.db"))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, try database.push(id: id, in: .default)?.deliveries.first?.status != .sent {
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(
            try database.push(id: id, in: .default)?.deliveries.first?.status == .sent, "sent once more after the lease"
        )
        world.kill(SIGTERM)
    }

    @Test("SIGTERM with an APNs batch and a webhook request both unanswered: the process ends within drain_seconds")
    func drainCoversEveryWorker() throws {
        let secret = WebhookSigner.newSecret()
        let receiverDirectory = TemporaryDirectory()
        let receiver = try WebhookReceiver(secrets: [secret], slowSeconds: 30, in: receiverDirectory)
        defer { receiver.stop() }
        let secretFile = try receiverDirectory.write("whsec", secret + "\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secretFile)
        let world = try Self.pushing(
            extra: """
                , "drain_seconds": 8, "webhooks": [{"name": "backend", "url": "\(receiver.url("slow"))",
                  "secret_files": ["\(secretFile)"], "allow_local_destinations": true, "ca_file": "\(receiver.certificate)"}]
                """, apnsDelayMilliseconds: 30_000)
        Thread.sleep(forTimeInterval: 1)  // claimed, and waiting for the late APNs
        // Deleting the device ends its delivery: the event goes to the receiver, which answers late.
        #expect(try world.send("DELETE", "/v1/devices/phone") == 204)
        let deadline = Date().addingTimeInterval(10)
        while receiver.requests().isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let stopping = Date()
        world.signal(SIGTERM)
        #expect(world.waitForExit(seconds: 20), "the process ends")
        let took = Date().timeIntervalSince(stopping)
        #expect(took < 8.8, "every worker kind within drain_seconds (8), not 8 and a quarter more: \(took) s")
    }

    @Test(
        "a batch slower than its lease is renewed while it is sent: another worker never claims it, APNs gets it once")
    func slowBatchSentOnce() throws {
        let world = try Self.pushing(extra: #", "workers": 2, "lease_seconds": 5"#, apnsDelayMilliseconds: 12_000)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && world.apns.requests().isEmpty { Thread.sleep(forTimeInterval: 0.2) }
        // The mock logs a request as it answers it, 12 s late: one sent again once the 5 s lease
        // lapsed (at about 5 s) would be answered by about 18 s.
        Thread.sleep(forTimeInterval: 7)
        #expect(world.apns.requests().count == 1, "two lease periods and more in flight, sent once")
        world.kill(SIGTERM)
    }

    @Test(
        "SIGTERM mid-batch with a backlog: one worker finishes its batch and claims no more; every unsent delivery is claimable at once, no lease left"
    )
    func drainClaimsNoMore() throws {
        let world = try GatewayProcessWorld(extra: #", "workers": 1, "drain_seconds": 10"#, apnsDelayMilliseconds: 700)
        try world.start()
        #expect(try world.registerDevice() == 201)
        let store = try SQLiteGatewayStore(path: world.directory.file("gateway.db"))
        let device = try #require(try store.device(id: "phone", in: .default))
        // A backlog of 400 deliveries, many times what one claim takes: the worker's feed claims
        // again as its sender takes them.
        let envelope = Base64URL.encode([1] + [UInt8](repeating: 7, count: 40))
        let deliveries = (0..<400).map { index in
            NewDelivery(
                device: device, headers: [("apns-topic", "com.example.shop"), ("apns-push-type", "alert")],
                body: Array(#"{"enc":"\#(envelope)","n":\#(index)}"#.utf8), expiration: nil)
        }
        #expect(
            try store.acceptPush(
                id: "backlog", in: .default, idempotencyKey: nil, requestHash: [], at: GatewayClock.milliseconds(),
                deliveries: deliveries) == .accepted)
        // Mid-batch: requests are out, their answers 0.7 s away.
        #expect(eventually(10) { world.apns.requests().count >= 50 })
        world.signal(SIGTERM)
        #expect(world.waitForExit(seconds: 15))
        let sent = try store.statistics().deliveries[.sent] ?? 0
        let queued = try store.statistics().deliveries[.queued] ?? 0
        #expect(sent + queued == 400)
        #expect(
            sent <= DeliveryWorkers.streams + 2 * DeliveryWorkers.claimSize,
            "only the batch in flight was sent after SIGTERM: \(sent)")
        let now = GatewayClock.milliseconds()
        let leased = try store.read(
            "SELECT count(*) FROM deliveries WHERE status = 'queued' AND lease_until > ?1", [.integer(now)])
        #expect(leased.first?.first?.integer == 0, "no lease left behind")
        let claimable = try store.claimDeliveries(
            .apns, from: [.default], limit: 1_000, at: now, leaseMilliseconds: 1_000, owner: "another-instance")
        #expect(claimable.count == queued && queued > 0, "\(claimable.count) of \(queued) claimable at once")
    }

    @Test("after SIGTERM no worker claims: a delivery queued during the drain is left unclaimed for the next start")
    func noClaimAfterStop() throws {
        let world = try Self.pushing(extra: #", "workers": 2, "drain_seconds": 3"#, apnsDelayMilliseconds: 8_000)
        Thread.sleep(forTimeInterval: 1)  // one worker holds it, waiting for the late APNs; the other is idle
        world.signal(SIGTERM)
        Thread.sleep(forTimeInterval: 0.3)
        // Queued behind the API's back (it answers 503 while draining), as another instance would.
        let store = try SQLiteGatewayStore(path: world.directory.file("gateway.db"))
        let device = try #require(try store.device(id: "phone", in: .default))
        let late = NewDelivery(
            device: device, headers: [("apns-topic", "com.example.shop")], body: [1], expiration: nil)
        #expect(
            try store.acceptPush(
                id: "late", in: .default, idempotencyKey: nil, requestHash: [], at: GatewayClock.milliseconds(),
                deliveries: [late])
                == .accepted)
        #expect(world.waitForExit(seconds: 10))
        let claimable = try store.claimDeliveries(
            .apns, from: [.default], limit: 5, at: GatewayClock.milliseconds(), leaseMilliseconds: 1_000,
            owner: "next-start")
        #expect(claimable.map(\.pushID) == ["late"], "never claimed by the stopping gateway")
    }

    @Test(
        "access_log \"all\" logs the probes and scrapes too; a value other than true, false or \"all\" does not start")
    func accessLogAll() throws {
        let world = try GatewayProcessWorld(extra: #", "access_log": "all""#)
        try world.start()
        #expect(try world.send("GET", "/metrics") == 200)
        world.kill(SIGTERM)
        let routes = world.logLines().filter { $0["event"] == .string("request") }.compactMap {
            $0["route"]?.stringValue
        }
        #expect(routes.contains("/healthz") && routes.contains("/metrics"), "\(routes)")
        let configuration = try String(contentsOfFile: world.directory.file("gateway.json"), encoding: .utf8)
        let invalid = try world.directory.write(
            "bad.json",
            configuration.replacingOccurrences(of: #""access_log": "all""#, with: #""access_log": "sometimes""#))
        let migrated = try CLIRunner.run(
            executable: GatewayOperationsTests.gateway, ["migrate", "--config", invalid], input: Data(),
            in: world.directory.path)
        #expect(migrated.status == 2 && migrated.errors.contains(#"$.access_log must be true, false or "all""#))
    }

    @Test(
        "logs: RFC 3339 UTC times and a level on every line, a request line per request without secrets, started and stopped"
    )
    func logs() throws {
        let world = try GatewayProcessWorld(extra: #", "access_log": true"#)
        try world.start()
        #expect(try world.registerDevice() == 201)
        #expect(try world.send("GET", "/v1/devices/nobody") == 404)
        world.kill(SIGTERM)
        let lines = world.logLines()
        #expect(lines.count >= 4)
        for line in lines {
            let time = line["time"]?.stringValue ?? ""
            #expect(time.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(time)")
            #expect(["info", "warning", "error"].contains(line["level"]?.stringValue ?? ""))
        }
        let started = try #require(lines.first { $0["event"] == .string("started") })
        #expect(started["version"] == .string(GatewayVersion.number) && started["database"] == .string("sqlite"))
        let requests = lines.filter { $0["event"] == .string("request") }
        #expect(
            requests.contains {
                $0["route"] == .string("/v1/devices/{device_id}") && $0["status"] == .number(JSONNumber(404))
                    && $0["token_id"]?.stringValue.map { world.token.contains($0) } == true
                    && $0["app"] == .string("default")
            }, "the token and its app")
        #expect(
            !requests.contains { ["/healthz", "/readyz", "/metrics"].contains($0["route"]?.stringValue ?? "") },
            "probes and scrapes are left out unless access_log is \"all\"")
        let text = (try? String(contentsOfFile: world.directory.file("gateway-0.log"), encoding: .utf8)) ?? ""
        let secret = Base64URL.encode(try #require(AccessTokens.parse(world.token)).secret)
        #expect(secret.count == 43 && !text.contains(secret), "the token's secret is never logged")
        #expect(lines.last?["event"] == .string("stopped") && lines.last?["drained"] == .bool(true))
    }

    @Test(
        "health: 0 while the gateway serves, on 0.0.0.0 asked on loopback; 1 naming the address once it stopped; 2 for a bad configuration"
    )
    func healthCommand() throws {
        let world = try GatewayProcessWorld()
        let configuration = try String(contentsOfFile: world.directory.file("gateway.json"), encoding: .utf8)
        _ = try world.directory.write(
            "gateway.json", configuration.replacingOccurrences(of: "\"127.0.0.1:", with: "\"0.0.0.0:"))
        func health(_ file: String = "gateway.json") throws -> CLIRunner.Result {
            try CLIRunner.run(
                executable: GatewayProcessWorld.executable, ["health", "--config", file], input: Data(),
                in: world.directory.path)
        }
        try world.start()
        let serving = try health()
        #expect(serving.status == 0, "\(serving.errors)")
        #expect(serving.output.contains("healthy: GET http://127.0.0.1:\(world.port)/healthz answered 200"))
        world.kill(SIGTERM)
        let stopped = try health()
        #expect(stopped.status == 1)
        #expect(stopped.errors.contains("unhealthy: GET http://127.0.0.1:\(world.port)/healthz"), "\(stopped.errors)")
        _ = try world.directory.write("broken.json", "{\"listen\": \"nowhere\"}")
        #expect(try health("broken.json").status == 2)
    }

    @Test("SQLite: backup copies a serving database, never over a file; the copy serves the same devices and pushes")
    func sqliteBackup() throws {
        let world = try GatewayProcessWorld()
        try world.start()
        #expect(try world.registerDevice() == 201)
        let answer = try GatewayHTTP.send(
            "POST", "http://127.0.0.1:\(world.port)/v1/pushes", body: Data(Self.push.utf8), token: world.token)
        let id = try #require(answer?.json?["id"]?.stringValue)
        let copy = try CLIRunner.run(
            executable: GatewayProcessWorld.executable, ["backup", "--config", "gateway.json", "--to", "copy.db"],
            input: Data(), in: world.directory.path)
        #expect(copy.status == 0, "\(copy.errors)")
        var info = stat()
        #expect(stat(world.directory.file("copy.db"), &info) == 0 && info.st_mode & 0o777 == 0o600)
        let again = try CLIRunner.run(
            executable: GatewayProcessWorld.executable, ["backup", "--config", "gateway.json", "--to", "copy.db"],
            input: Data(), in: world.directory.path)
        #expect(again.status == 2 && again.errors.contains("copy.db cannot be created"), "\(again.errors)")
        world.kill(SIGTERM)
        let restored = try SQLiteGatewayStore(path: world.directory.file("copy.db"))
        #expect(try restored.migrate().from == GatewaySchema.version)
        #expect(try restored.device(id: "phone", in: .default) != nil)
        #expect(try restored.push(id: id, in: .default)?.deliveries.count == 1)
        let configuration = try String(contentsOfFile: world.directory.file("gateway.json"), encoding: .utf8)
        _ = try world.directory.write(
            "pg.json", configuration.replacingOccurrences(of: "sqlite:gateway.db", with: "postgres://u@127.0.0.1:1/x"))
        let postgres = try CLIRunner.run(
            executable: GatewayProcessWorld.executable, ["backup", "--config", "pg.json", "--to", "x.db"],
            input: Data(), in: world.directory.path)
        #expect(postgres.status == 2 && postgres.errors.contains("pg_dump"), "\(postgres.errors)")
    }

    @Test("PostgreSQL: pg_dump and pg_restore, as documented, bring back the devices and pushes")
    func postgresBackup() throws {
        let server = try PostgresTestServer.shared.get()
        let database = try server.createDatabase()
        let world = try GatewayProcessWorld(database: database)
        try world.start()
        #expect(try world.registerDevice() == 201)
        let answer = try GatewayHTTP.send(
            "POST", "http://127.0.0.1:\(world.port)/v1/pushes", body: Data(Self.push.utf8), token: world.token)
        let id = try #require(answer?.json?["id"]?.stringValue)
        let copy = try server.restoredCopy(of: database)
        world.kill(SIGTERM)
        let restored = PostgresGatewayStore(url: copy, passwordFile: nil, connections: 2)
        #expect(try restored.migrate().from == GatewaySchema.version)
        #expect(try restored.device(id: "phone", in: .default) != nil)
        #expect(try restored.push(id: id, in: .default)?.deliveries.count == 1)
    }
}
