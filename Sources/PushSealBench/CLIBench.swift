import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The release CLI measured as users run it.
enum CLIBench {
    struct BatchResult {
        let lines: Int
        let oneWorker: Double
        let twoWorkers: Double
    }

    struct DecryptResult {
        let peakResidentBytes: Int
        let seconds: Double
    }

    /// `encrypt --json-lines` over `lines` jobs, with one worker and with two (lines per second).
    static func batch(cli: String, payload: JSONObject, lines: Int) -> BatchResult? {
        let key = ProcessBench.run([cli, "keys", "generate", "--suite", "x25519"])
        let publicKey = ProcessBench.run([cli, "keys", "public", ProcessBench.temporaryFile("batch-key", key.output)])
        guard publicKey.status == 0, let jwk = try? JSONParser.parse(publicKey.output).objectValue else { return nil }
        var line = Array(#"{"to":"#.utf8)
        JSONWriter.write(.object(jwk), into: &line)
        line += Array(#","payload":"#.utf8)
        JSONWriter.write(.object(payload), into: &line)
        line += Array("}\n".utf8)
        var input: [UInt8] = []
        input.reserveCapacity(line.count * lines)
        for _ in 0..<lines { input += line }
        let path = ProcessBench.temporaryFile("batch-input", input)
        func rate(_ jobs: Int) -> Double {
            let runs = (0..<3).map { _ in
                ProcessBench.run([cli, "encrypt", "--json-lines", "--jobs", "\(jobs)", path], discardOutput: true)
            }
            let best = runs.map(\.seconds).min() ?? 0
            return runs.allSatisfy({ $0.status == 0 }) && best > 0 ? Double(lines) / best : 0
        }
        return BatchResult(lines: lines, oneWorker: rate(1), twoWorkers: rate(2))
    }

    /// One `pushseal decrypt` process on one sealed payload: its peak RSS and its wall time.
    static func decryptProcess(cli: String, payload: JSONObject) -> DecryptResult? {
        let store = "/tmp/pushseal-bench-store-\(getpid())"
        _ = ProcessBench.run(["rm", "-rf", store])
        _ = ProcessBench.run([cli, "keys", "init", "--store", store])
        let rotated = ProcessBench.run([cli, "keys", "rotate", "--store", store])
        let keyPath = ProcessBench.temporaryFile("device.pub.jwk", rotated.output)
        let payloadPath = ProcessBench.temporaryFile("payload.json", JSONWriter.bytes(.object(payload)))
        let sealed = ProcessBench.run([cli, "encrypt", "--to", keyPath, payloadPath])
        let sealedPath = ProcessBench.temporaryFile("sealed.json", sealed.output)
        // GNU time forks from its own small process: ru_maxrss of a child spawned from this large
        // process would start from this process's high-water mark (Linux keeps it across exec).
        let runs = (0..<7).map { _ in measured([cli, "decrypt", "--store", store, sealedPath], report: "\(store).time")
        }
        _ = ProcessBench.run(["rm", "-rf", store, "\(store).time"])
        let samples = runs.compactMap { $0 }
        guard samples.count == runs.count else { return nil }
        return DecryptResult(
            peakResidentBytes: samples.map(\.result.peakResidentBytes).max() ?? 0,
            seconds: runs.compactMap { $0?.result.seconds }.min() ?? 0)
    }

    /// One run of `command` under GNU time, writing its report to `report`: its output, its peak
    /// RSS (from GNU time) and its wall time (from this process's clock, finer than GNU time's
    /// hundredths), or nil when it failed.
    static func measured(_ command: [String], report: String) -> (output: [UInt8], result: DecryptResult)? {
        let run = ProcessBench.run(["/usr/bin/time", "-f", "%M %e", "-o", report] + command)
        guard run.status == 0, let line = readFile(report).map({ String(decoding: $0, as: UTF8.self) }) else {
            return nil
        }
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 2, let kilobytes = Int(fields[0]) else { return nil }
        return (run.output, DecryptResult(peakResidentBytes: kilobytes * 1024, seconds: run.seconds))
    }
}

/// The Python implementation's rates, measured in the same run.
enum PythonPeerBench {
    /// Seal and open rates by `suite-mode` name, or empty when the peer is not set up.
    static func run(python: String, payloadPath: String) -> [String: (seal: Double, open: Double)] {
        let result = ProcessBench.run(
            [python, "interop/python/pushseal.py", "bench", "--seconds", "1"], inputPath: payloadPath)
        // RFC 8291: pywebpush's encode (a fresh key, http_ece's encryption) and http_ece's decrypt.
        let webPush = ProcessBench.run(
            [python, "interop/python/webpush_peer.py", "bench", "--seconds", "1"], inputPath: payloadPath)
        var rates: [String: (seal: Double, open: Double)] = [:]
        for run in [result, webPush] {
            guard run.status == 0, let object = try? JSONParser.parse(run.output).objectValue else { continue }
            rates.merge(parsedRates(in: object)) { _, new in new }
        }
        return rates
    }

    private static func parsedRates(in object: JSONObject) -> [String: (seal: Double, open: Double)] {
        var rates: [String: (seal: Double, open: Double)] = [:]
        for (name, value) in object {
            guard let rate = value.objectValue, let seal = rate["seal"]?.numberValue?.doubleValue,
                let open = rate["open"]?.numberValue?.doubleValue
            else { continue }
            rates[name] = (seal, open)
        }
        return rates
    }
}
