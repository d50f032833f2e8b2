import PushSealBenchStatistics
import PushSealCore
import PushSealPrimitives

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fetched content on the device side (envelope-v1.md, "Fetched content"): `pushseal decrypt` of
/// a push whose content is fetched from a local HTTPS server (media_server.py's `/bearer/`, as the
/// gateway serves it to a capability), against the same content carried in the push, the two
/// runs alternating in the same process tree. The difference is what a fetch adds on the phone
/// against a nearby server: a TLS handshake, the request, the checks and a second open.
enum FetchBench {
    struct Result {
        /// Median wall time of a decrypt of the push carrying the content, in seconds.
        let inline: Double
        /// Median wall time of a decrypt that fetches the same content, in seconds.
        let fetched: Double
        /// The fetching decrypt's peak RSS.
        let peakResidentBytes: Int

        /// What the fetch adds, in seconds.
        var extra: Double { fetched - inline }
    }

    /// Runs of each kind.
    static let runs = 15

    static func run(cli: String, python: String, payload: JSONObject) -> Result? {
        let work = "/tmp/pushseal-bench-fetch-\(getpid())"
        _ = ProcessBench.run(["rm", "-rf", work])
        _ = ProcessBench.run(["mkdir", "-p", "\(work)/served"])
        defer { _ = ProcessBench.run(["rm", "-rf", work]) }
        let store = "\(work)/store"
        _ = ProcessBench.run([cli, "keys", "init", "--store", store])
        let keyPath = ProcessBench.temporaryFile(
            "fetch-device.jwk", ProcessBench.run([cli, "keys", "rotate", "--store", store]).output)
        let payloadPath = ProcessBench.temporaryFile("fetch-payload.json", JSONWriter.bytes(.object(payload)))
        let inline = ProcessBench.run([cli, "encrypt", "--to", keyPath, payloadPath])
        guard inline.status == 0, let outer = try? JSONParser.parse(inline.output).objectValue,
            let enc = outer["enc"]?.stringValue, let envelope = Base64URL.decode(enc)
        else { return nil }
        let inlinePath = ProcessBench.temporaryFile("fetch-inline.json", inline.output)
        guard let server = MediaServerProcess(python: python, work: work) else { return nil }
        defer { server.stop() }
        let (port, certificate) = (server.port, server.certificate)
        // The content as the gateway keeps it: the payload's envelope, binary; its capability beside it.
        let capability = Base64URL.encode(SecureRandom.bytes(32))
        writeFile("\(work)/served/content.env", envelope)
        writeFile("\(work)/served/content.env.capability", Array(capability.utf8))
        let reference = JSONObject([
            ("url", .string("https://127.0.0.1:\(port)/bearer/content.env")), ("capability", .string(capability)),
            ("expires", .number(JSONNumber(Int(time(nil)) + 3_600))), ("size", .number(JSONNumber(envelope.count))),
            ("sha256", .string(Base64URL.encode(SHA256.hash(envelope)))), ("format", .string("envelope")),
        ])
        let referencePayload = JSONObject([
            ("aps", .object(JSONObject([("alert", .string("New notification"))]))), ("fetch", .object(reference)),
        ])
        let referencePath = ProcessBench.temporaryFile(
            "fetch-reference.json", JSONWriter.bytes(.object(referencePayload)))
        let fetching = ProcessBench.run([cli, "encrypt", "--to", keyPath, referencePath])
        guard fetching.status == 0 else { return nil }
        let fetchingPath = ProcessBench.temporaryFile("fetch-fetched.json", fetching.output)
        defer { _ = ProcessBench.run(["rm", "-f", keyPath, payloadPath, inlinePath, referencePath, fetchingPath]) }
        let fetchCommand = [
            cli, "decrypt", "--store", store, "--ca-file", certificate, "--allow-local-fetch", fetchingPath,
        ]
        guard let measured = CLIBench.measured(fetchCommand, report: "\(work)/time"),
            String(decoding: measured.output, as: UTF8.self).contains(#""fetched":true"#)
        else { return nil }
        var inlineSeconds: [Double] = []
        var fetchedSeconds: [Double] = []
        for _ in 0..<runs {
            let plain = ProcessBench.run([cli, "decrypt", "--store", store, inlinePath], discardOutput: true)
            let fetched = ProcessBench.run(fetchCommand, discardOutput: true)
            guard plain.status == 0, fetched.status == 0 else { return nil }
            inlineSeconds.append(plain.seconds)
            fetchedSeconds.append(fetched.seconds)
        }
        return Result(
            inline: Spread(inlineSeconds).median, fetched: Spread(fetchedSeconds).median,
            peakResidentBytes: measured.result.peakResidentBytes)
    }
}
