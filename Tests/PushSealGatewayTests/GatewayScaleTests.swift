import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// Several gateway processes on one PostgreSQL, through the faults an operator is paged for.
@Suite("pushseal-gateway at scale, on PostgreSQL", .serialized)
struct GatewayScaleTests {
    /// Three instances behind a round-robin "load balancer", one mock APNs, a user of ten devices:
    /// 2,000 pushes make 20,000 deliveries. Mid-run one instance is killed with SIGKILL (and
    /// restarted later), and PostgreSQL is stopped, then started again: meanwhile the gateways
    /// answer 503, and afterwards they recover without a restart. Every accepted push reaches
    /// every device (counted by token and event_id after decryption); a delivery repeats only when
    /// it was in flight at the kill or the outage, and the repeats are counted.
    @Test(
        "three instances on one PostgreSQL: 20,000 deliveries, an instance killed and the database stopped, none lost")
    func threeInstances() throws {
        // A server of its own: it is stopped mid-run, which would fail the tests sharing the other.
        let server = try PostgresTestServer()
        let database = try server.createDatabase()
        let world = try GatewayProcessWorld(
            extra: #", "workers": 2, "lease_seconds": 5"#, database: database, instances: 3)
        for instance in 0..<3 { try world.start(instance: instance) }
        let devices = 10
        for device in 1...devices {
            let status = try world.send(
                "PUT", "/v1/devices/phone-\(device)",
                #"{"user":"u","token":"\#(GatewayWorld.deviceToken("00aa", device))","topic":"com.example.shop","environment":"production","key":\#(world.deviceKey)}"#,
                instance: device % 3)
            #expect(status == 201)
        }

        var accepted: [String] = []
        var unavailable = 0
        var readyDuringOutage: Int?
        var down: Set<Int> = []
        for index in 0..<2_000 {
            switch index {
            case 600:
                world.kill(SIGKILL, instance: 1)
                down.insert(1)
            case 900:
                try world.start(instance: 1)
                down.remove(1)
            case 1_200:
                try server.stop()
            case 1_206:
                readyDuringOutage = try world.send("GET", "/readyz", instance: 0)
                try server.start()
            default: break
            }
            let instance = [0, 1, 2].filter { !down.contains($0) }[index % (3 - down.count)]
            let eventID = "event-\(index)"
            let status = try world.send(
                "POST", "/v1/pushes",
                #"{"to":{"user":"u"},"payload":{"aps":{"alert":"n \#(index)"},"event_id":"\#(eventID)"}}"#,
                instance: instance)
            if status == 202 { accepted.append(eventID) }
            if status == 503 { unavailable += 1 }
        }
        #expect(unavailable >= 1, "the gateways answered 503 while the database was away")
        #expect(readyDuringOutage == 503, "/readyz failed while the database was away")
        #expect(accepted.count >= 1_900, "the gateways recovered by themselves: \(accepted.count) accepted")

        let store = PostgresGatewayStore(url: database, passwordFile: nil, connections: 2)
        let drained = (0..<1_200).contains { _ in
            Thread.sleep(forTimeInterval: 0.1)
            return (try? store.statistics().deliveries[.queued] ?? 0) == 0
        }
        #expect(drained, "the outbox drains: \((try? store.statistics().deliveries) ?? [:])")

        let received = world.apns.requests().filter { $0["status"] as? Int == 200 }
        // In runs of 2,000 bodies: one run of 20,000 can outlast the runner's timeout on a loaded machine.
        // Each run's lines are paired with its own requests, so that a run that went wrong is
        // reported as such, not as pushes lost from there on.
        var pairs: [(line: Substring, request: [String: Any])] = []
        for start in stride(from: 0, to: received.count, by: 2_000) {
            let requests = Array(received[start..<min(received.count, start + 2_000)])
            let bodies = requests.map { $0["body"] as? String ?? "" }
            let opened = try CLIRunner.run(
                ["decrypt", "--store", "store", "--json-lines"], input: Data(bodies.joined(separator: "\n").utf8),
                in: world.directory.path)
            let lines = opened.output.split(separator: "\n")
            #expect(
                lines.count == bodies.count && opened.inputError == nil,
                """
                decrypting bodies \(start)..<\(start + bodies.count): \(lines.count) lines, status \(opened.status), \
                input \(opened.inputError ?? "written"), \(bodies.filter(\.isEmpty).count) empty bodies, \
                errors: \(opened.errors.suffix(500))
                """)
            if lines.count == bodies.count { pairs += zip(lines, requests).map { ($0, $1) } }
        }
        var delivered: [String: Int] = [:]
        for (line, request) in pairs {
            let result = try JSONParser.parse(String(line)).objectValue
            guard
                let eventID = result?["notification"]?.objectValue?["userInfo"]?.objectValue?["event_id"]?.stringValue,
                let token = request["token"] as? String
            else { continue }
            delivered["\(token) \(eventID)", default: 0] += 1
        }
        let expected = Set(
            accepted.flatMap { eventID in (1...devices).map { "\(GatewayWorld.deviceToken("00aa", $0)) \(eventID)" } })
        let missing = expected.subtracting(delivered.keys)
        let repeats = delivered.values.reduce(0) { $0 + $1 - 1 }
        print(
            "gateway at scale: \(expected.count) deliveries accepted, \(received.count) received, "
                + "\(missing.count) lost, \(repeats) repeats, \(unavailable) answers 503")
        #expect(missing.isEmpty, "lost, for example: \(missing.sorted().prefix(5))")
        // In flight at the kill: one instance's workers' batches; at the outage: every instance's.
        #expect(
            repeats <= (1 + 3) * 2 * (DeliveryWorkers.streams + DeliveryWorkers.claimSize),
            "repeats only for deliveries in flight")
    }
}
