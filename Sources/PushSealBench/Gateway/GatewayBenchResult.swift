import PushSealCore

extension GatewayBench {
    /// What one setup measured, each figure beside what bounds it.
    struct Result {
        /// `sqlite`, or `postgres ×N`, and the mock's delay when it has one.
        let setup: String
        let apnsDelayMilliseconds: Int
        /// Delivery workers per instance, and streams per worker.
        let workers: Int
        let streams: Int
        /// Peak accepts, one device per user.
        let oneDevice: WrkLoad.Result
        /// Accepts at half that rate.
        let halfRate: WrkLoad.Result
        /// Peak accepts, ten devices per user.
        let tenDevices: WrkLoad.Result
        /// The store's floor: one device, one push per commit.
        let oneDeviceFloor: StoreFloor.Rate?
        /// One device, 64 pushes per commit.
        let oneDeviceBatchedFloor: StoreFloor.Rate?
        /// Ten devices, one push per commit.
        let tenDevicesFloor: StoreFloor.Rate?
        /// Deliveries accepted while the mock was stopped.
        let backlog: Int
        /// The backlog's drain, deliveries per second.
        let deliveriesPerSecond: Double
        /// `pushseal send` on as many jobs with as many streams, pushes per second (with a delay).
        let sendDirect: Double?
        /// The most streams the mock saw open at once.
        let mostOpenStreams: Int
        /// The mock's CPU time per request answered: far below a delivery's, or the mock is the limit.
        let mockMicrosecondsPerRequest: Double
        /// The fixed-rate run.
        let fixedRate: WrkLoad.Result
        /// What the one-device peak, the fixed-rate run and the ten-device peak cost a push
        /// (accepted and delivered), and how busy the processors were in each.
        let oneDeviceCost: PhaseCost
        let fixedRateCost: PhaseCost
        let tenDevicesCost: PhaseCost
        /// The largest instance's.
        let peakResidentBytes: Int
        /// Accept to APNs, from the gateway's histogram over the first three phases.
        let latencyP50: Double
        let latencyP99: Double
        /// Deliveries per second to a user of 5 APNs devices and 5 subscriptions, when measured.
        var mixedDeliveriesPerSecond: Double?
        /// Web Push messages the relay accepted per second on one endpoint, when measured.
        var relayAcceptedPerSecond: Double?
        /// Those messages forwarded to the mock APNs per second, acceptance included.
        var relayForwardedPerSecond: Double?

        /// What the workers' streams carry at the mock's delay, deliveries per second (nil at 0 ms).
        var latencyLimit: Double? {
            apnsDelayMilliseconds > 0 ? Double(workers * streams) * 1_000 / Double(apnsDelayMilliseconds) : nil
        }

        /// The printed lines.
        var lines: [String] {
            func ratio(_ value: Double, _ floor: StoreFloor.Rate?) -> String {
                floor.map {
                    " (\(Report.format(value / max($0.pushesPerSecond, 1), 2)) of the floor \(Report.format($0.pushesPerSecond)))"
                } ?? ""
            }
            var lines = [
                "gateway (\(setup); APNs: FastMockAPNs, \(Report.format(mockMicrosecondsPerRequest, 1)) µs of CPU a request):",
                "  accepts, one device each: \(Report.format(oneDevice.perSecond))/s\(ratio(oneDevice.perSecond, oneDeviceFloor)), "
                    + "p99 \(milliseconds(oneDevice.p99)); the floor at 64 pushes a commit "
                    + "\(oneDeviceBatchedFloor.map { Report.format($0.pushesPerSecond) } ?? "n/a")/s",
                oneDeviceCost.line(rate: oneDevice.perSecond),
                "  at half that rate (\(Report.format(halfRate.perSecond))/s): p50 \(milliseconds(halfRate.p50)), "
                    + "p99 \(milliseconds(halfRate.p99))"
                    + (oneDeviceFloor.map { "; the floor's own transactions: p99 \(milliseconds($0.p99Seconds))" } ?? ""),
                "  accepts, ten devices each: \(Report.format(tenDevices.perSecond))/s, "
                    + "\(Report.format(tenDevices.perSecond * 10)) deliveries stored/s"
                    + ratio(tenDevices.perSecond, tenDevicesFloor) + ", p99 \(milliseconds(tenDevices.p99))",
                tenDevicesCost.line(rate: tenDevices.perSecond),
                "  delivers a backlog of \(backlog): \(Report.format(deliveriesPerSecond))/s"
                    + (latencyLimit.map {
                        ", \(Report.format(deliveriesPerSecond / $0, 2)) of the latency limit \(Report.format($0))"
                    } ?? "")
                    + (sendDirect.map {
                        ", \(Report.format(deliveriesPerSecond / $0, 2)) of pushseal send (\(Report.format($0))/s)"
                    } ?? "")
                    + "; at most \(mostOpenStreams) streams open",
                "  at \(Report.format(fixedRate.perSecond)) pushes/s: "
                    + "\(Report.format(fixedRateCost.gatewayMicroseconds)) µs of CPU a push (accepted and delivered)"
                    + (fixedRateCost.databaseMicroseconds.map { " and \(Report.format($0)) µs of PostgreSQL's" } ?? "")
                    + (fixedRateCost.processors.map { ", the processors \($0)" } ?? "")
                    + ", peak RSS \(Report.format(Double(peakResidentBytes) / 1_048_576, 1)) MB; "
                    + "accept to APNs p50 ≤ \(Report.format(latencyP50, 2)) s, p99 ≤ \(Report.format(latencyP99, 2)) s",
            ]
            if let mixed = mixedDeliveriesPerSecond {
                lines.append(
                    "  a user of 5 APNs devices and 5 Web Push subscriptions (Python push service mock): \(Report.format(mixed))/s"
                )
            }
            if let relay = relayAcceptedPerSecond {
                lines.append(
                    "  the relay accepts \(Report.format(relay)) Web Push messages/s on one endpoint and forwards "
                        + "\(Report.format(relayForwardedPerSecond ?? 0))/s to APNs")
            }
            return lines
        }

        /// The figures for results.json.
        var json: JSONValue {
            func number(_ value: Double?, _ places: Int = 0) -> JSONValue {
                value.map { Report.number($0, places) } ?? .null
            }
            func load(_ result: WrkLoad.Result) -> JSONValue {
                .object(
                    JSONObject([
                        ("perSecond", number(result.perSecond)), ("accepted", .number(JSONNumber(result.accepted))),
                        ("refused", .number(JSONNumber(result.refused))), ("p50Seconds", number(result.p50, 4)),
                        ("p99Seconds", number(result.p99, 4)),
                    ]))
            }
            return .object(
                JSONObject([
                    ("apns", .string("FastMockAPNs")),
                    ("apnsDelayMilliseconds", .number(JSONNumber(apnsDelayMilliseconds))),
                    ("mockMicrosecondsPerRequest", number(mockMicrosecondsPerRequest, 1)),
                    ("acceptOneDevice", load(oneDevice)), ("acceptHalfRate", load(halfRate)),
                    ("acceptTenDevices", load(tenDevices)),
                    ("floorOneDevicePerSecond", number(oneDeviceFloor?.pushesPerSecond)),
                    ("floorOneDeviceTransactionP99Seconds", number(oneDeviceFloor?.p99Seconds, 4)),
                    ("floorOneDevice64PerCommitPerSecond", number(oneDeviceBatchedFloor?.pushesPerSecond)),
                    ("floorTenDevicesPerSecond", number(tenDevicesFloor?.pushesPerSecond)),
                    ("oneDeviceToFloor", number(oneDeviceFloor.map { oneDevice.perSecond / $0.pushesPerSecond }, 2)),
                    ("tenDevicesToFloor", number(tenDevicesFloor.map { tenDevices.perSecond / $0.pushesPerSecond }, 2)),
                    ("backlog", .number(JSONNumber(backlog))), ("deliveriesPerSecond", number(deliveriesPerSecond)),
                    ("latencyLimit", number(latencyLimit)),
                    ("deliveriesToLatencyLimit", number(latencyLimit.map { deliveriesPerSecond / $0 }, 2)),
                    ("sendDirectPerSecond", number(sendDirect)),
                    ("deliveriesToSendDirect", number(sendDirect.map { deliveriesPerSecond / $0 }, 2)),
                    ("mostOpenStreams", .number(JSONNumber(mostOpenStreams))), ("fixedRate", load(fixedRate)),
                    ("cpuMicrosecondsPerPush", number(fixedRateCost.gatewayMicroseconds)),
                    ("databaseCPUMicrosecondsPerPush", number(fixedRateCost.databaseMicroseconds)),
                    ("costOneDevice", oneDeviceCost.json), ("costFixedRate", fixedRateCost.json),
                    ("costTenDevices", tenDevicesCost.json),
                    ("peakResidentBytes", .number(JSONNumber(peakResidentBytes))),
                    ("acceptToAPNsP50SecondsAtMost", number(latencyP50, 2)),
                    ("acceptToAPNsP99SecondsAtMost", number(latencyP99, 2)),
                    ("mixedDeliveriesPerSecond", number(mixedDeliveriesPerSecond)),
                    ("relayAcceptedPerSecond", number(relayAcceptedPerSecond)),
                    ("relayForwardedPerSecond", number(relayForwardedPerSecond)),
                ]))
        }

        private func milliseconds(_ seconds: Double) -> String { "\(Report.format(seconds * 1_000, 1)) ms" }
    }
}
