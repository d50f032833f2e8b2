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
    let gateway: GatewayBench.Result?
    let media: MediaBench.Result?

    static let floorTarget = 0.85
    static let pythonTarget = 1.5
    static let residentTarget = 16 * 1024 * 1024
    static let mediaFloorTarget = 0.8

    private func mark(_ ok: Bool) -> String { ok ? "ok  " : "MISS" }

    private func format(_ value: Double, _ decimals: Int = 0) -> String {
        var text = String(Int((value * pow(10, Double(decimals))).rounded()))
        if decimals > 0 {
            while text.count <= decimals { text = "0" + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -decimals))
        }
        return text
    }

    private func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    var table: String {
        var lines = [
            "",
            "suite/mode      seal/s  floor/s  ratio        open/s  floor/s  ratio        vs Python seal    open",
        ]
        for result in suites {
            let hpke = !result.name.hasPrefix("xchacha")
            let sealRatio = result.seal / result.sealFloor
            let openRatio = result.open / result.openFloor
            var line = result.name + String(repeating: " ", count: max(0, 13 - result.name.count))
            line += pad(format(result.seal), 8) + pad(format(result.sealFloor), 9) + pad(format(sealRatio, 2), 7)
            line += hpke ? " " + mark(sealRatio >= Self.floorTarget) : "  -  "
            line += pad(format(result.open), 9) + pad(format(result.openFloor), 9) + pad(format(openRatio, 2), 7)
            line += hpke ? " " + mark(openRatio >= Self.floorTarget) : "  -  "
            if let peer = python[result.name] {
                let sealSpeedup = result.seal / peer.seal
                let openSpeedup = result.open / peer.open
                line += pad(format(sealSpeedup, 1) + "×", 10) + " " + mark(sealSpeedup >= Self.pythonTarget)
                line += pad(format(openSpeedup, 1) + "×", 7) + " " + mark(openSpeedup >= Self.pythonTarget)
            } else {
                line += "   (Python peer not measured)"
            }
            lines.append(line)
        }
        lines.append("")
        lines.append(
            "targets: HPKE seal and open ≥ \(Self.floorTarget) of the floor; every suite ≥ \(Self.pythonTarget)× Python"
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
        if let send {
            lines.append(
                "send to the mock APNs over one connection: \(format(send.oneStream)) pushes/s with 1 stream, "
                    + "\(format(send.thirtyTwoStreams)) with 32")
        }
        if let gateway {
            let ratio = send.map { gateway.deliveriesPerSecond / max($0.thirtyTwoStreams, 1) }
            lines.append(
                "gateway: accepts \(format(gateway.acceptOneDevice)) pushes/s (one device each), "
                    + "\(format(gateway.acceptTenDevices)) (a user of 10 devices); delivers \(format(gateway.deliveriesPerSecond))/s "
                    + "to the mock (×\(format(ratio ?? 0, 2)) of send with 32 streams); accept to APNs p50 ≤ "
                    + "\(format(gateway.latencyP50, 2)) s, p99 ≤ \(format(gateway.latencyP99, 2)) s; peak RSS "
                    + "\(format(Double(gateway.peakResidentBytes) / 1_048_576, 1)) MB")
        }
        if let media {
            let sealRatio = media.seal / media.sealFloor
            let openRatio = media.open / media.openFloor
            lines.append(
                "media objects (8 MB): seal \(format(media.seal)) MB/s, floor \(format(media.sealFloor)), "
                    + "ratio \(format(sealRatio, 2)) \(mark(sealRatio >= Self.mediaFloorTarget)); open \(format(media.open)) MB/s, "
                    + "floor \(format(media.openFloor)), ratio \(format(openRatio, 2)) \(mark(openRatio >= Self.mediaFloorTarget))"
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
        return lines.joined(separator: "\n")
    }

    var json: JSONObject {
        var object = JSONObject()
        object["payloadBytes"] = .number(JSONNumber(payloadBytes))
        object["suites"] = .object(
            JSONObject(
                suites.map { result in
                    var entry = JSONObject()
                    entry["sealPerSecond"] = number(result.seal)
                    entry["sealFloorPerSecond"] = number(result.sealFloor)
                    entry["sealRatio"] = number(result.seal / result.sealFloor, 3)
                    entry["openPerSecond"] = number(result.open)
                    entry["openFloorPerSecond"] = number(result.openFloor)
                    entry["openRatio"] = number(result.open / result.openFloor, 3)
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
            var entry = JSONObject([
                ("sealMegabytesPerSecond", number(media.seal)),
                ("sealFloorMegabytesPerSecond", number(media.sealFloor)),
                ("openMegabytesPerSecond", number(media.open)),
                ("openFloorMegabytesPerSecond", number(media.openFloor)),
            ])
            if let fetch = media.fetch {
                entry["fetchDecryptPeakResidentBytes"] = .number(JSONNumber(fetch.peakResidentBytes))
                entry["fetchDecryptWallSeconds"] = number(fetch.seconds, 3)
            }
            object["media"] = .object(entry)
        }
        if let send {
            object["send"] = .object(
                JSONObject([
                    ("oneStreamPushesPerSecond", number(send.oneStream)),
                    ("thirtyTwoStreamsPushesPerSecond", number(send.thirtyTwoStreams)),
                ]))
        }
        if let gateway {
            object["gateway"] = .object(
                JSONObject([
                    ("acceptOneDevicePushesPerSecond", number(gateway.acceptOneDevice)),
                    ("acceptTenDevicesPushesPerSecond", number(gateway.acceptTenDevices)),
                    ("deliveriesPerSecond", number(gateway.deliveriesPerSecond)),
                    (
                        "deliveriesToSendRatio",
                        send.map { number(gateway.deliveriesPerSecond / max($0.thirtyTwoStreams, 1), 2) } ?? .null
                    ),
                    ("acceptToAPNsP50SecondsAtMost", number(gateway.latencyP50, 2)),
                    ("acceptToAPNsP99SecondsAtMost", number(gateway.latencyP99, 2)),
                    ("peakResidentBytes", .number(JSONNumber(gateway.peakResidentBytes))),
                ]))
        }
        return object
    }

    private func number(_ value: Double, _ decimals: Int = 0) -> JSONValue {
        guard let parsed = try? JSONParser.parse(format(value, decimals)), case .number(let number) = parsed else {
            return .null
        }
        return .number(number)
    }

    func write(to path: String) {
        guard let file = fopen(path, "w") else { return }
        let bytes = JSONWriter.bytes(.object(json)) + [0x0A]
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
}
