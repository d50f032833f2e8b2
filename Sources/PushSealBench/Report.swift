import PushSealBenchStatistics
import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bench's table and its JSON, with each target of issue 5 checked.
struct Report {
    let payloadBytes: Int
    let suites: [SuiteBench.Result]
    let python: [String: (seal: Double, open: Double)]
    let batch: CLIBench.BatchResult?
    let decrypt: CLIBench.DecryptResult?
    let send: SendBench.Result?
    let gateway: [GatewayBench.Result]
    let media: MediaBench.Result?
    /// Whether the measuring thread ran pinned to one core.
    let pinnedCore: Bool
    /// A fetched push's decrypt against an inline one's, when measured.
    var fetched: FetchBench.Result? = nil
    /// The gateway with receipts against without, when measured.
    var receipts: ReceiptBench.Result? = nil

    static let floorTarget = 0.85
    static let pythonTarget = 1.5
    static let residentTarget = 16 * 1024 * 1024
    static let mediaFloorTarget = 0.8
    /// Receipts (issue 69): accepts with receipts at least 0.9 of without; receipts taken at least
    /// as fast as deliveries leave.
    static let receiptAcceptTarget = 0.9
    static let receiptRateTarget = 1.0

    /// RFC 8291's targets (issue 33): seal and open ≥ 0.9 of the floor, ≥ 5× pywebpush.
    static let webPushFloorTarget = 0.9
    static let webPushPythonTarget = 5.0

    /// A row's floor target (none for XChaCha20-Poly1305, a single AEAD call) and Python target.
    static func targets(_ name: String) -> (floor: Double?, python: Double) {
        if name == WebPushBench.name { return (webPushFloorTarget, webPushPythonTarget) }
        return (name.hasPrefix("xchacha") ? nil : floorTarget, pythonTarget)
    }

    private func mark(_ ok: Bool) -> String { ok ? "ok  " : "MISS" }

    private func format(_ value: Double, _ decimals: Int = 0) -> String { Self.format(value, decimals) }

    /// `value` rounded to `decimals` places, as text.
    static func format(_ value: Double, _ decimals: Int = 0) -> String { DecimalText.text(value, decimals: decimals) }

    private func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// `median (lower quartile–upper quartile)` of a ratio.
    private func ratioText(_ ratio: Spread) -> String {
        "\(format(ratio.median, 2)) (\(format(ratio.lowerQuartile, 2))–\(format(ratio.upperQuartile, 2)))"
    }

    static let latencyLimitTarget = 0.8
    static let aioapnsTarget = 1.5

    /// The delivery rows: at once, then at a realistic round trip beside its limit and aioapns.
    /// The lines of every gateway setup measured.
    var gatewayLines: [String] { gateway.flatMap(\.lines) }

    func sendLines(_ send: SendBench.Result) -> [String] {
        var lines = [
            "send to FastMockAPNs over one connection: \(format(send.oneStream)) pushes/s with 1 stream, "
                + "\(format(send.thirtyTwoStreams)) with 32"
        ]
        for late in send.latency {
            let ofLimit = late.pushseal / late.limit
            var line =
                "send at a \(late.delayMilliseconds) ms round trip, \(late.streams) streams, \(late.placement.rawValue): "
                + "\(format(late.pushseal)) pushes/s, \(format(ofLimit, 2)) of the latency limit \(format(late.limit)) "
                + "\(mark(ofLimit >= Self.latencyLimitTarget)); at most \(late.mostOpenStreams) streams open"
            if let aioapns = late.aioapns, let ratio = late.toAioapns {
                line +=
                    "; aioapns \(format(aioapns)) pushes/s, ×\(ratioText(ratio)) \(mark(ratio.median >= Self.aioapnsTarget))"
            }
            lines.append(line)
            var cpu = "  client CPU per push: pushseal \(format(late.pushsealMicrosecondsPerPush)) µs"
            if let aioapns = late.aioapnsMicrosecondsPerPush { cpu += ", aioapns \(format(aioapns)) µs" }
            cpu += "; the mock used \(format(late.mockBusy * 100)) % of a core during pushseal's runs"
            lines.append(cpu)
        }
        for run in send.lossRuns {
            lines.append(
                "  --concurrency \(run.concurrency) (server allows 1,000): \(run.jobs) jobs, \(run.lost) lost "
                    + "\(mark(run.lost == 0)), \(format(run.perSecond)) pushes/s")
        }
        return lines
    }

    var table: String {
        var lines = [
            "",
            "suite/mode      seal/s  floor/s  ratio (IQR)            open/s  floor/s  ratio (IQR)            vs Python seal    open",
        ]
        for result in suites {
            let targets = Self.targets(result.name)
            var line = result.name + String(repeating: " ", count: max(0, 13 - result.name.count))
            for comparison in [result.seal, result.open] {
                line += pad(format(comparison.rate), 8) + pad(format(comparison.floorRate), 9)
                line += pad(ratioText(comparison.ratio), 18)
                line += targets.floor.map { " " + mark(comparison.ratio.median >= $0) } ?? "  -  "
            }
            if let peer = python[result.name] {
                let sealSpeedup = result.seal.rate / peer.seal
                let openSpeedup = result.open.rate / peer.open
                line += pad(format(sealSpeedup, 1) + "×", 10) + " " + mark(sealSpeedup >= targets.python)
                line += pad(format(openSpeedup, 1) + "×", 7) + " " + mark(openSpeedup >= targets.python)
            } else {
                line += "   (Python peer not measured)"
            }
            lines.append(line)
        }
        lines.append("")
        let rounds = suites.first?.seal.ratio.count ?? 0
        lines.append(
            "ratios: the median of \(rounds) paired rounds (product and floor back to back, in alternating order), "
                + "with the interquartile range; measuring thread \(pinnedCore ? "pinned to one core" : "not pinned")")
        lines.append(
            "targets: HPKE seal and open ≥ \(Self.floorTarget) of the floor (median); every suite ≥ \(Self.pythonTarget)× Python; "
                + "\(WebPushBench.name) ≥ \(Self.webPushFloorTarget) of its floor and ≥ \(format(Self.webPushPythonTarget))× "
                + "pywebpush (seal) and http_ece (open)"
        )
        if let batch {
            lines.append(
                "batch CLI (\(batch.lines) lines): \(format(batch.oneWorker)) lines/s with 1 worker, "
                    + "\(format(batch.twoWorkers)) with 2 (×\(format(batch.twoWorkers / max(batch.oneWorker, 1), 2)))")
        }
        if let decrypt {
            let megabytes = Double(decrypt.peakResidentBytes) / 1_048_576
            lines.append(
                "one `pushseal decrypt`: peak RSS \(format(megabytes, 1)) MB (target < 16 MB: "
                    + "\(decrypt.peakResidentBytes < Self.residentTarget ? "ok" : "MISS")), "
                    + "wall \(format(decrypt.seconds * 1000, 1)) ms")
        }
        if let send { lines += sendLines(send) }
        lines += gatewayLines
        if let media {
            let megabytes = Double(MediaBench.sampleLength) / 1_000_000
            lines.append(
                "media objects (8 MB): seal \(format(media.seal.rate * megabytes)) MB/s, floor "
                    + "\(format(media.seal.floorRate * megabytes)), ratio \(ratioText(media.seal.ratio)) "
                    + "\(mark(media.seal.ratio.median >= Self.mediaFloorTarget)); open \(format(media.open.rate * megabytes)) "
                    + "MB/s, floor \(format(media.open.floorRate * megabytes)), ratio \(ratioText(media.open.ratio)) "
                    + "\(mark(media.open.ratio.median >= Self.mediaFloorTarget))"
            )
            if let fetch = media.fetch {
                let megabytes = Double(fetch.peakResidentBytes) / 1_048_576
                lines.append(
                    "one `pushseal decrypt --media-dir` fetching a 50 MB video: peak RSS \(format(megabytes, 1)) MB "
                        + "(target < 16 MB: \(fetch.peakResidentBytes < Self.residentTarget ? "ok" : "MISS")), "
                        + "wall \(format(fetch.seconds, 2)) s")
            } else {
                lines.append("the 50 MB video fetch could not be measured (media_server.py did not start)")
            }
        }
        if let fetched { lines.append(fetchedLine(fetched)) }
        if let receipts { lines += receiptLines(receipts) }
        return lines.joined(separator: "\n")
    }

    /// The lines of the gateway with receipts against without.
    func receiptLines(_ receipts: ReceiptBench.Result) -> [String] {
        [
            "receipts (SQLite, one instance, APNs at once): accepts \(format(receipts.acceptOn)) pushes/s with receipts, "
                + "\(format(receipts.acceptOff)) without (medians of \(ReceiptBench.acceptRounds), alternating): "
                + "\(format(receipts.acceptRatio, 3)) (target ≥ \(Self.receiptAcceptTarget): "
                + "\(receipts.acceptRatio >= Self.receiptAcceptTarget ? "ok" : "MISS"))",
            "receipts taken \(format(receipts.receiptsPerSecond))/s over \(ReceiptBench.receiptConnections) connections "
                + "(\(receipts.receipts) posted, "
                + (receipts.receipts <= ReceiptBench.keptDeliveries
                    ? "each to another delivery, " : "MORE than the \(ReceiptBench.keptDeliveries) deliveries kept, ")
                + "\(receipts.receiptsRefused) not 204) against deliveries sent \(format(receipts.deliveriesPerSecond))/s "
                + "draining a backlog (\(format(receipts.deliveriesWithoutPerSecond))/s without receipts): "
                + "\(format(receipts.receiptRatio, 2)) (target ≥ \(Self.receiptRateTarget): "
                + "\(receipts.receiptRatio >= Self.receiptRateTarget && receipts.receiptsRefused == 0 ? "ok" : "MISS"))",
        ]
    }

    /// The line of a fetched push's decrypt against an inline one's.
    func fetchedLine(_ fetched: FetchBench.Result) -> String {
        "a push whose content is fetched (a local HTTPS server): `pushseal decrypt` \(format(fetched.fetched * 1_000, 1)) ms "
            + "against \(format(fetched.inline * 1_000, 1)) ms for the same content in the push "
            + "(+\(format(fetched.extra * 1_000, 1)) ms, medians of \(FetchBench.runs)); peak RSS "
            + "\(format(Double(fetched.peakResidentBytes) / 1_048_576, 1)) MB "
            + "(target < 16 MB: \(fetched.peakResidentBytes < Self.residentTarget ? "ok" : "MISS"))"
    }

    var json: JSONObject {
        var object = JSONObject()
        object["payloadBytes"] = .number(JSONNumber(payloadBytes))
        object["pinnedToOneCore"] = .bool(pinnedCore)
        object["suites"] = .object(
            JSONObject(
                suites.map { result in
                    var entry = JSONObject()
                    entry["sealPerSecond"] = number(result.seal.rate)
                    entry["sealFloorPerSecond"] = number(result.seal.floorRate)
                    entry["sealRatio"] = spread(result.seal.ratio)
                    entry["openPerSecond"] = number(result.open.rate)
                    entry["openFloorPerSecond"] = number(result.open.floorRate)
                    entry["openRatio"] = spread(result.open.ratio)
                    if let peer = python[result.name] {
                        entry["pythonSealPerSecond"] = number(peer.seal)
                        entry["pythonOpenPerSecond"] = number(peer.open)
                    }
                    return (result.name, JSONValue.object(entry))
                }))
        if let batch {
            object["batch"] = .object(
                JSONObject([
                    ("lines", .number(JSONNumber(batch.lines))), ("oneWorkerLinesPerSecond", number(batch.oneWorker)),
                    ("twoWorkersLinesPerSecond", number(batch.twoWorkers)),
                ]))
        }
        if let decrypt {
            object["decryptProcess"] = .object(
                JSONObject([
                    ("peakResidentBytes", .number(JSONNumber(decrypt.peakResidentBytes))),
                    ("wallSeconds", number(decrypt.seconds, 4)),
                ]))
        }
        if let media {
            let megabytes = Double(MediaBench.sampleLength) / 1_000_000
            var entry = JSONObject([
                ("sealMegabytesPerSecond", number(media.seal.rate * megabytes)),
                ("sealFloorMegabytesPerSecond", number(media.seal.floorRate * megabytes)),
                ("sealRatio", spread(media.seal.ratio)),
                ("openMegabytesPerSecond", number(media.open.rate * megabytes)),
                ("openFloorMegabytesPerSecond", number(media.open.floorRate * megabytes)),
                ("openRatio", spread(media.open.ratio)),
            ])
            if let fetch = media.fetch {
                entry["fetchDecryptPeakResidentBytes"] = .number(JSONNumber(fetch.peakResidentBytes))
                entry["fetchDecryptWallSeconds"] = number(fetch.seconds, 3)
            }
            object["media"] = .object(entry)
        }
        if let fetched {
            object["fetchedPush"] = .object(
                JSONObject([
                    ("inlineDecryptSeconds", number(fetched.inline, 4)),
                    ("fetchedDecryptSeconds", number(fetched.fetched, 4)),
                    ("fetchedDecryptPeakResidentBytes", .number(JSONNumber(fetched.peakResidentBytes))),
                ]))
        }
        if let receipts {
            object["receipts"] = .object(
                JSONObject([
                    ("acceptPushesPerSecondWith", number(receipts.acceptOn)),
                    ("acceptPushesPerSecondWithout", number(receipts.acceptOff)),
                    ("acceptRatio", number(receipts.acceptRatio, 3)),
                    ("receiptsTakenPerSecond", number(receipts.receiptsPerSecond)),
                    ("deliveriesPerSecond", number(receipts.deliveriesPerSecond)),
                    ("deliveriesWithoutReceiptsPerSecond", number(receipts.deliveriesWithoutPerSecond)),
                    ("receiptRatio", number(receipts.receiptRatio, 3)),
                    ("receiptsPosted", .number(JSONNumber(receipts.receipts))),
                    ("receiptsRefused", .number(JSONNumber(receipts.receiptsRefused))),
                ]))
        }
        if let send {
            object["send"] = .object(
                JSONObject(
                    [
                        ("apns", .string("FastMockAPNs")),
                        ("oneStreamPushesPerSecond", number(send.oneStream)),
                        ("thirtyTwoStreamsPushesPerSecond", number(send.thirtyTwoStreams)),
                        ("atLatency", .array(send.latency.map { .object(latencyJSON($0)) })),
                        ("lossRuns", .array(send.lossRuns.map(lossJSON))),
                    ]))
        }
        if !gateway.isEmpty {
            object["gateway"] = .object(JSONObject(gateway.map { ($0.setup, $0.json) }))
        }
        return object
    }

    /// A ratio's median, quartiles, extremes and number of rounds.
    private func spread(_ ratio: Spread) -> JSONValue {
        .object(
            JSONObject([
                ("median", number(ratio.median, 3)), ("lowerQuartile", number(ratio.lowerQuartile, 3)),
                ("upperQuartile", number(ratio.upperQuartile, 3)), ("minimum", number(ratio.minimum, 3)),
                ("maximum", number(ratio.maximum, 3)), ("rounds", .number(JSONNumber(ratio.count))),
            ]))
    }

    /// One loss run as JSON.
    private func lossJSON(_ run: (concurrency: Int, jobs: Int, lost: Int, perSecond: Double)) -> JSONValue {
        .object(
            JSONObject([
                ("concurrency", .number(JSONNumber(run.concurrency))), ("jobs", .number(JSONNumber(run.jobs))),
                ("lost", .number(JSONNumber(run.lost))), ("pushesPerSecond", number(run.perSecond)),
            ]))
    }

    /// A 50 ms row as JSON.
    private func latencyJSON(_ late: SendBench.LatencyResult) -> JSONObject {
        var object = JSONObject([
            ("placement", .string(late.placement.rawValue)),
            ("delayMilliseconds", .number(JSONNumber(late.delayMilliseconds))),
            ("streams", .number(JSONNumber(late.streams))), ("pushesPerSecond", number(late.pushseal)),
            ("latencyLimit", number(late.limit)), ("ofLatencyLimit", number(late.pushseal / late.limit, 3)),
            ("mostOpenStreams", .number(JSONNumber(late.mostOpenStreams))),
            ("pushsealCPUMicrosecondsPerPush", number(late.pushsealMicrosecondsPerPush, 1)),
            ("mockBusyShareOfCore", number(late.mockBusy, 3)),
        ])
        if let aioapns = late.aioapnsMicrosecondsPerPush {
            object["aioapnsCPUMicrosecondsPerPush"] = number(aioapns, 1)
        }
        if let aioapns = late.aioapns, let ratio = late.toAioapns {
            object["aioapnsPushesPerSecond"] = number(aioapns)
            object["toAioapns"] = spread(ratio)
        }
        return object
    }

    private func number(_ value: Double, _ decimals: Int = 0) -> JSONValue { Self.number(value, decimals) }

    /// `value` rounded to `decimals` places, as a JSON number.
    static func number(_ value: Double, _ decimals: Int = 0) -> JSONValue {
        guard let parsed = try? JSONParser.parse(format(value, decimals)), case .number(let number) = parsed else {
            return .null
        }
        return .number(number)
    }

    func write(to path: String) {
        writeFile(path, JSONWriter.bytes(.object(json)) + [0x0A])
    }
}
