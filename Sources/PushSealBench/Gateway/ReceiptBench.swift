import PushSealBenchStatistics
import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Receipts' cost to the gateway (gateway-v1.md, "Receipts"), in one run, on SQLite against
/// ``FastMockAPNs``, two gateways side by side: one whose app has `receipts`, one without.
///
/// 1. deliveries: the mock is stopped while one-device pushes are accepted by the gateway with
///    receipts, then let go, and the backlog's drain is timed (deliveries per second); the mock
///    keeps the first ``keptDeliveries`` bodies, each with its failure ticket in clear;
/// 2. receipts: wrk posts a `degraded` receipt with each kept ticket, each delivery once, to
///    `/v1/receipts/{delivery}` over ``receiptConnections`` (receipts taken per second: each one
///    a write);
/// 3. the same backlog in the gateway without receipts (its drain timed too), so that both stores
///    hold as many rows;
/// 4. accepts: wrk's peak `POST /v1/pushes`, one device per user, alternating between the gateway
///    without receipts and the one with, ``acceptRounds`` times each, each phase's deliveries
///    answered before the next begins (the medians).
///
/// The contract: accepts with receipts within 10 % of without, and receipts taken at least as
/// fast as deliveries leave.
enum ReceiptBench {
    struct Result {
        /// Pushes accepted per second without receipts, and with (medians of the rounds).
        let acceptOff: Double
        let acceptOn: Double
        /// Deliveries that left per second, draining a backlog, with receipts and without.
        let deliveriesPerSecond: Double
        let deliveriesWithoutPerSecond: Double
        /// Receipts taken (204) per second, each of another delivery.
        let receiptsPerSecond: Double
        /// Receipts posted, and those not answered 204.
        let receipts: Int
        let receiptsRefused: Int

        /// Accepts with receipts over accepts without.
        var acceptRatio: Double { acceptOn / max(acceptOff, 0.001) }
        /// Receipts taken per delivery sent, per second.
        var receiptRatio: Double { receiptsPerSecond / max(deliveriesPerSecond, 0.001) }
    }

    /// Failure tickets kept from the backlog: each receipt goes to another delivery.
    static let keptDeliveries = 30_000
    static let acceptRounds = 5
    /// Receipts come from many phones at once, each on its own connection: more connections than
    /// a backend's pushes (32). Up to 10,000 receipts a second, 3 s stay within the kept
    /// tickets, so that none is posted twice (the report says when more were posted).
    static let receiptConnections = 64
    static let receiptSeconds = 3
    static let acceptSeconds = 3

    static func run(cli: String, gateway: String, payload: JSONObject) -> Result? {
        let directory = "/tmp/pushseal-bench-receipts-\(getpid())"
        _ = ProcessBench.run(["rm", "-rf", directory])
        _ = ProcessBench.run(["mkdir", "-p", directory])
        defer { _ = ProcessBench.run(["rm", "-rf", directory]) }
        guard
            let mock = FastMockAPNsProcess.start(
                directory: directory, maximumConcurrentStreams: 400, keepBodies: keptDeliveries)
        else { return nil }
        defer { mock.stop() }
        _ = ProcessBench.run([cli, "keys", "generate", "--suite", "x25519", "--out", "\(directory)/sender.jwk"])
        let firstPort = 19_000 + Int(getpid() % 1_000) * 2
        // Receipts come from 127.0.0.1 alone here: its rate is lifted so that the bench measures the store.
        let receipts =
            #", "receipts": {"url": "https://push.bench"}, "http": {"receipts_per_second": 1000000, "receipts_burst": 1000000}"#
        var servers: [ProcessBench.Background] = []
        defer { servers.forEach { $0.stop() } }
        var gateways: [(base: String, token: String)] = []
        for (index, members) in [receipts, ""].enumerated() {
            let config = ProcessBench.temporaryFile(
                "receipts-gateway-\(index).json",
                Array(
                    GatewayBench.configuration(
                        port: firstPort + index, database: "sqlite:\(directory)/gateway-\(index).db", workers: 4,
                        directory: directory, mock: mock, members: members
                    ).utf8))
            let made = ProcessBench.run([gateway, "token", "create", "--config", config, "--scope", "admin"])
            guard made.status == 0, let server = ProcessBench.spawn([gateway, "serve", "--config", config]) else {
                return nil
            }
            servers.append(server)
            let base = "http://127.0.0.1:\(firstPort + index)"
            guard GatewayBench.waitUntilHealthy(base, seconds: 5) else { return nil }
            let token = String(decoding: made.output.filter { $0 != 0x0A }, as: UTF8.self)
            guard GatewayBench.register(cli: cli, base: base, token: token, pushService: nil) else { return nil }
            gateways.append((base, token))
        }
        let (withReceipts, without) = (gateways[0], gateways[1])
        let content = JSONWriter.string(.object(payload))
        var delivered = 0
        func load(_ target: (base: String, token: String), seconds: Int) -> WrkLoad.Result? {
            WrkLoad.run(
                bases: [target.base], token: target.token, prefix: "one", users: GatewayBench.singleUsers,
                payload: content,
                seconds: seconds)
        }

        /// Accepts pushes with the mock stopped until at least `count` wait, lets it go, and
        /// times the drain: how many, and deliveries per second.
        func backlog(_ target: (base: String, token: String), atLeast count: Int) -> (Int, Double)? {
            mock.pause()
            var waiting = 0
            for _ in 0..<20 where waiting < count {
                guard let phase = load(target, seconds: 2) else {
                    mock.resume()
                    return nil
                }
                waiting += phase.accepted
            }
            let clock = ContinuousClock()
            let start = clock.now
            mock.resume()
            delivered += waiting
            guard waiting >= count, mock.waitUntilAnswered(delivered) else { return nil }
            return (waiting, Double(waiting) / Stopwatch.seconds(since: start, clock))
        }

        // 1. A backlog with receipts, drained.
        guard let (waiting, deliveriesPerSecond) = backlog(withReceipts, atLeast: keptDeliveries) else { return nil }

        // 2. A receipt for each kept delivery.
        guard let bodies = mock.keptBodies(), bodies.count == keptDeliveries else { return nil }
        let tickets = bodies.compactMap { $0[ReceiptTicket.member].flatMap { try? ReceiptTicket(json: $0) } }
        guard tickets.count == keptDeliveries, let taken = post(tickets, to: withReceipts.base, directory: directory)
        else { return nil }

        // 3. As many rows in the other gateway's store, so that both accept on a store of the same size.
        guard let (_, deliveriesWithoutPerSecond) = backlog(without, atLeast: waiting) else { return nil }

        // 4. Accepts, alternating.
        var off: [Double] = []
        var on: [Double] = []
        for _ in 0..<acceptRounds {
            for (target, hasReceipts) in [(without, false), (withReceipts, true)] {
                guard let phase = load(target, seconds: acceptSeconds), phase.accepted > 0 else { return nil }
                if hasReceipts { on.append(phase.perSecond) } else { off.append(phase.perSecond) }
                delivered += phase.accepted
                guard mock.waitUntilAnswered(delivered) else { return nil }
            }
        }
        return Result(
            acceptOff: Spread(off).median, acceptOn: Spread(on).median, deliveriesPerSecond: deliveriesPerSecond,
            deliveriesWithoutPerSecond: deliveriesWithoutPerSecond,
            receiptsPerSecond: taken.perSecond, receipts: taken.accepted + taken.refused,
            receiptsRefused: taken.refused)
    }

    /// Posts a `degraded` receipt with each of `tickets`, once each, to `base` (not the tickets'
    /// public URL) over ``receiptConnections`` connections for ``receiptSeconds``, with wrk; what
    /// wrk counted.
    private static func post(_ tickets: [ReceiptTicket], to base: String, directory: String) -> WrkLoad.Result? {
        let rows = tickets.map { #"{"\#($0.deliveryID)","\#($0.authorization)"}"# }.joined(separator: ",\n")
        let table = "\(directory)/tickets.lua"
        writeFile(table, Array("return {\n\(rows)\n}\n".utf8))
        let script = """
            local tickets = dofile("\(table)")
            local next_ticket = 0
            local body = [==[{"outcome":"degraded","reason":"timeout"}]==]
            request = function()
              next_ticket = next_ticket + 1
              if next_ticket > #tickets then next_ticket = 1 end
              local ticket = tickets[next_ticket]
              return wrk.format("POST", "/v1/receipts/" .. ticket[1],
                {["Authorization"] = ticket[2], ["Content-Type"] = "application/json"}, body)
            end
            """
        return WrkLoad.run(
            script: script, name: "receipts", bases: [base], path: "/v1/receipts", seconds: receiptSeconds,
            connectionsPerInstance: receiptConnections)
    }
}
