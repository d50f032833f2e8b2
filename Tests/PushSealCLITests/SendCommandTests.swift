import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

/// `pushseal send` against the mock APNs: HTTP/2 over TLS, token auth, every answer class.
@Suite("pushseal send against a mock APNs", .serialized)
struct SendCommandTests {
    static func job(_ token: String, _ recipient: String, extra: String = "") -> String {
        #"{"token":"\#(token)","topic":"com.example.shop","to":\#(recipient),"payload":{"aps":{"alert":{"title":"Order","body":"Shipped"}},"event_id":"e-\#(token)"}\#(extra)}"#
    }

    static func token(_ prefix: String, _ index: Int) -> String {
        prefix + String(repeating: "0", count: 60 - String(index).count - prefix.count + 4) + String(index)
    }

    @Test("every response class: sent, unregistered, permanent failures, token refresh, back-off and retries")
    func responseClasses() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory)
        defer { mock.stop() }
        let to = try world.devicePublicJWK()
        let sealed = try world.encrypt(order).output.trimmingCharacters(in: .newlines)
        let cases: [(token: String, status: String, reason: String?, attempts: Int)] = [
            (Self.token("00aa", 1), "sent", nil, 1),
            (Self.token("0410", 2), "unregistered", "Unregistered", 1),
            (Self.token("0400", 3), "failed", "BadDeviceToken", 1),
            (Self.token("0413", 4), "failed", "PayloadTooLarge", 1),
            (Self.token("4031", 5), "failed", "InvalidProviderToken", 1),
            (Self.token("0403", 6), "sent", nil, 2),
            (Self.token("0429", 7), "sent", nil, 3),
            (Self.token("0500", 8), "sent", nil, 2),
            (Self.token("0503", 9), "sent", nil, 2),
            (Self.token("5003", 10), "failed", "ServiceUnavailable", 4),
        ]
        var input = cases.map { Self.job($0.token, to) }.joined(separator: "\n") + "\n"
        input += #"{"token":"not-hex","topic":"t","to":\#(to),"payload":{"aps":{}}}"# + "\n"
        input += #"{"token":"\#(Self.token("00bb", 12))","topic":"com.example.shop","sealed":\#(sealed)}"# + "\n"
        input += "{broken\n"
        let result = try world.run(mock.sendArguments + ["--sender", "sender.jwk"], input: input)
        #expect(result.status == 1)
        let lines = try result.lines.map { try #require(try JSONParser.parse($0).objectValue) }
        #expect(lines.count == cases.count + 3)
        for (index, expected) in cases.enumerated() {
            let line = lines[index]
            #expect(line["line"] == .number(JSONNumber(index + 1)))
            #expect(line["status"] == .string(expected.status), "\(expected.token)")
            #expect(line["reason"]?.stringValue == expected.reason, "\(expected.token)")
            #expect(line["attempts"] == .number(JSONNumber(expected.attempts)), "\(expected.token)")
            if expected.status != "failed" || expected.reason != nil {
                #expect(line["apns-id"]?.stringValue?.count == 36, "\(expected.token): apns-id recorded")
            }
        }
        #expect(lines[1]["timestamp"] == .number(JSONNumber(1_700_000_000_000)), "410 reports APNs' timestamp")
        #expect(lines[10]["status"] == .string("failed") && lines[10]["attempts"] == .number(JSONNumber(0)))
        #expect(lines[11]["status"] == .string("sent"), "an already sealed payload is sent as it is")
        #expect(lines[12]["status"] == .string("failed") && lines[12]["line"] == .number(JSONNumber(13)))
        #expect(result.errors.contains("13 jobs, 6 sent, 1 unregistered, 6 failed"))

        let requests = mock.requests()
        let tokens = Set(requests.compactMap { $0["jwt"] as? String })
        #expect(tokens.count == 2, "one provider token for everything, replaced once after ExpiredProviderToken")
        let refreshed = requests.filter { ($0["token"] as? String)?.hasPrefix("0403") == true }.compactMap {
            $0["jwt"] as? String
        }
        #expect(refreshed.count == 2 && refreshed[0] != refreshed[1])
        #expect(requests.allSatisfy { ($0["reason"] as? String) != "NotSealed" }, "every body was a sealed payload")
        #expect(
            requests.allSatisfy { ($0["headers"] as? [String: String])?["content-type"] == "application/json" },
            "the body is declared JSON")
    }

    @Test("a 1,000-job batch with scripted failures gives exactly 1,000 lines, in order, with the right statuses")
    func thousandJobs() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory)
        defer { mock.stop() }
        let to = try world.devicePublicJWK()
        var expected: [String] = []
        var input = ""
        for index in 1...1000 {
            let (prefix, status) =
                switch index {
                case _ where index % 50 == 0: ("0410", "unregistered")
                case _ where index % 77 == 0: ("0400", "failed")
                case _ where index % 91 == 0: ("0503", "sent")
                case _ where index % 97 == 0: ("0429", "sent")
                default: ("00cc", "sent")
                }
            expected.append(status)
            input += Self.job(Self.token(prefix, index), to) + "\n"
        }
        let result = try world.run(
            mock.sendArguments + ["--sender", "sender.jwk", "--concurrency", "32"], input: input)
        #expect(result.status == 1)
        let lines = result.lines
        #expect(lines.count == 1000)
        for (index, line) in lines.enumerated() {
            #expect(line.hasPrefix("{\"line\":\(index + 1),\"status\":\"\(expected[index])\""), "\(line.prefix(80))")
        }
        #expect(
            Set(mock.requests().compactMap { $0["jwt"] as? String }).count == 1, "one provider token for 1,000 jobs")
    }

    @Test("100 streams through the server's default 65,535-byte window and 100-stream limit: no push dropped")
    func fullWindow() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory)
        defer { mock.stop() }
        let (sealed, input) = try Self.sealedJobs(3_000, body: "Shipped", in: world)
        let result = try world.run(mock.sendArguments + ["--concurrency", "100"], input: input)
        #expect(result.status == 0, "\(result.errors.suffix(300))")
        #expect(Self.allSent(result, 3_000))
        let requests = mock.requests()
        #expect(Self.processedOnce(mock, 3_000), "each push reached the server exactly once")
        #expect(requests.allSatisfy { ($0["body"] as? String) == sealed }, "every body arrived whole")
    }

    @Test("at a 50 ms round trip and --concurrency 100, streams stay open by the dozen, not 21")
    func streamsAtLatency() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory, delayMilliseconds: 50)
        defer { mock.stop() }
        // Bodies of about 1.5 KB: 21 of them filled the 32 KiB budget the libcurl transport kept.
        let (sealed, input) = try Self.sealedJobs(1_000, body: String(repeating: "x", count: 1_000), in: world)
        #expect(sealed.utf8.count > 1_400)
        let result = try world.run(mock.sendArguments + ["--concurrency", "100"], input: input)
        #expect(result.status == 0, "\(result.errors.suffix(300))")
        #expect(Self.allSent(result, 1_000))
        let requests = mock.requests()
        #expect(requests.count == 1_000)
        let mostOpen = requests.compactMap { $0["streams_open"] as? Int }.max() ?? 0
        #expect(mostOpen > 50, "at most \(mostOpen) streams were open at once")
        #expect(mostOpen <= 100, "never more than --concurrency")
        #expect(requests.allSatisfy { ($0["body"] as? String) == sealed }, "every body arrived whole")
    }

    @Test("without --concurrency, up to 100 streams are in flight (cli-v1's default)")
    func defaultConcurrency() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory, delayMilliseconds: 50)
        defer { mock.stop() }
        let (_, input) = try Self.sealedJobs(400, body: "Shipped", in: world)
        let result = try world.run(mock.sendArguments, input: input)
        #expect(Self.allSent(result, 400))
        let mostOpen = mock.requests().compactMap { $0["streams_open"] as? Int }.max() ?? 0
        #expect(mostOpen > 32 && mostOpen <= 100, "at most \(mostOpen) streams were open at once")
    }

    @Test("a server whose SETTINGS allow 5 concurrent streams never sees a sixth, and gets every push")
    func serverStreamLimit() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory, delayMilliseconds: 20, maximumConcurrentStreams: 5)
        defer { mock.stop() }
        let (_, input) = try Self.sealedJobs(200, body: "Shipped", in: world)
        let result = try world.run(mock.sendArguments + ["--concurrency", "100"], input: input)
        #expect(result.status == 0, "\(result.errors.suffix(300))")
        #expect(Self.allSent(result, 200))
        #expect(mock.violations().isEmpty, "\(mock.violations())")
        let open = mock.requests().compactMap { $0["streams_open"] as? Int }
        #expect(open.count == 200)
        #expect(open.max() == 5, "the limit was used in full and never passed: \(open.max() ?? 0)")
    }

    @Test(
        "GOAWAY every 100 requests: what the server accepted is answered, the rest is sent again, none lost or doubled")
    func goAwayMidRun() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory, delayMilliseconds: 20, goAwayAfter: 100)
        defer { mock.stop() }
        let (_, input) = try Self.sealedJobs(1_000, body: "Shipped", in: world)
        let result = try world.run(mock.sendArguments + ["--concurrency", "64"], input: input)
        #expect(result.status == 0, "\(result.errors.suffix(300))")
        let lines = try Self.results(result)
        #expect(lines.count == 1_000)
        #expect(
            lines.allSatisfy { $0["status"] == .string("sent") },
            "\(lines.first { $0["status"] != .string("sent") }.map { "\($0)" } ?? "")")
        #expect(
            lines.allSatisfy { $0["attempts"] == .number(JSONNumber(1)) },
            "a request the GOAWAY refused is not an attempt")
        let requests = mock.requests()
        #expect(Self.processedOnce(mock, 1_000), "each push was processed exactly once")
        let connections = Set(requests.compactMap { $0["connection"] as? Int })
        #expect(connections.count >= 10, "a new connection after each GOAWAY: \(connections.count)")
    }

    @Test("a connection that goes silent is pinged, given up, and its requests retried on a new one: none lost")
    func silentConnection() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory, silentAfter: 100)
        defer { mock.stop() }
        let (_, input) = try Self.sealedJobs(300, body: "Shipped", in: world)
        let started = ContinuousClock.now
        let result = try world.run(mock.sendArguments + ["--concurrency", "50"], input: input)
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 0, "\(result.errors.suffix(300))")
        // PING after 5 s of silence, given up 10 s later, retried within 5 s: well before the 30 s a
        // request waits for its answer, the rule that would end it without PING.
        #expect(
            elapsed < .seconds(28), "the silent connection was found by PING, not by the answer timeout: \(elapsed)")
        let lines = try Self.results(result)
        #expect(lines.count == 300 && lines.allSatisfy { $0["status"] == .string("sent") })
        let retried = lines.filter { $0["attempts"] == .number(JSONNumber(2)) }
        #expect(
            !retried.isEmpty && retried.count <= 50, "the requests caught on the silent connection: \(retried.count)")
        let requests = mock.requests()
        #expect(Self.processedOnce(mock, 300), "each push was processed exactly once")
        #expect(Set(requests.compactMap { $0["connection"] as? Int }) == [1, 2])
    }

    @Test("stalled on flow control (credit only with each answer, 1 s late): it waits, it does not spin")
    func flowControlStallDoesNotSpin() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory, delayMilliseconds: 1_000, lateWindowCredit: true)
        defer { mock.stop() }
        // 200 bodies of about 1.5 KB: some 40 fit the 65,535-byte window, the rest wait for credit.
        let (_, input) = try Self.sealedJobs(200, body: String(repeating: "x", count: 1_000), in: world)
        let result = try CLIRunner.run(
            executable: URL(fileURLWithPath: "/usr/bin/time"),
            ["-f", "cpu %e %U %S", CLIRunner.executable.path] + mock.sendArguments + ["--concurrency", "100"],
            input: Data(input.utf8), in: world.directory.path)
        #expect(result.status == 0, "\(result.errors.suffix(300))")
        #expect(Self.allSent(result, 200))
        let times = try #require(result.errors.split(separator: "\n").last { $0.hasPrefix("cpu ") })
            .split(separator: " ").dropFirst().compactMap { Double($0) }
        try #require(times.count == 3)
        let (wall, cpu) = (times[0], times[1] + times[2])
        #expect(wall >= 2, "the window held the bodies back for several round trips: \(wall) s")
        #expect(cpu < wall * 0.3, "\(cpu) s of CPU in \(wall) s: a client stalled on flow control must sleep")
    }

    @Test("--concurrency 1000 against a server that allows 1,000 streams: every push delivered exactly once")
    func thousandStreams() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory, delayMilliseconds: 50, maximumConcurrentStreams: 1_000)
        defer { mock.stop() }
        let (_, input) = try Self.sealedJobs(3_000, body: String(repeating: "x", count: 1_000), in: world)
        let result = try world.run(mock.sendArguments + ["--concurrency", "1000"], input: input)
        #expect(result.status == 0, "\(result.errors.suffix(300))")
        #expect(Self.allSent(result, 3_000))
        let requests = mock.requests()
        #expect(Self.processedOnce(mock, 3_000), "each push reached the server exactly once")
        #expect(mock.violations().isEmpty, "\(mock.violations())")
        let mostOpen = requests.compactMap { $0["streams_open"] as? Int }.max() ?? 0
        #expect(mostOpen > 100, "more streams than the default limit were used: \(mostOpen)")
    }

    /// One payload with alert `body`, sealed by `world`, and `count` jobs that send it to distinct tokens.
    static func sealedJobs(_ count: Int, body: String, in world: CLIWorld) throws -> (sealed: String, input: String) {
        let sealed = try world.encrypt(#"{"aps":{"alert":{"title":"Order","body":"\#(body)"}}}"#).output
            .trimmingCharacters(in: .newlines)
        var input = ""
        for index in 1...count {
            input += #"{"token":"\#(Self.token("00dd", index))","topic":"com.example.shop","sealed":\#(sealed)}"# + "\n"
        }
        return (sealed, input)
    }

    /// Whether `result` reports exactly `count` jobs, every one sent.
    static func allSent(_ result: CLIRunner.Result, _ count: Int) -> Bool {
        result.lines.count == count && result.lines.allSatisfy { $0.contains(#""status":"sent""#) }
    }

    /// Whether the mock processed `count` distinct device tokens, each exactly once.
    static func processedOnce(_ mock: MockAPNs, _ count: Int) -> Bool {
        let tokens = mock.requests().compactMap { $0["token"] as? String }
        return tokens.count == count && Set(tokens).count == count
    }

    /// The parsed output lines of a `send` run.
    static func results(_ result: CLIRunner.Result) throws -> [JSONObject] {
        try result.lines.map { try #require(try JSONParser.parse($0).objectValue) }
    }

    @Test("a job whose headers would inject a line is refused with a named reason; the batch goes on")
    func headerInjection() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory)
        defer { mock.stop() }
        let to = try world.devicePublicJWK()
        let payload = #"{"aps":{"alert":{"title":"Order","body":"Shipped"}}}"#
        func line(_ index: Int, _ members: String) -> String {
            #"{"token":"\#(Self.token("00dd", index))","to":\#(to),"payload":\#(payload),\#(members)}"# + "\n"
        }
        var input = line(1, #""topic":"com.example.app\r\nx-injected: yes""#)
        input += line(2, #""topic":"com.example.app","collapse-id":"c\r\nx-injected: yes""#)
        input += line(3, #""topic":"com.example.app","apns-id":"6B83B22E-7E22-420D-8C8C-921FD6BDCD3\n""#)
        input += line(4, #""topic":"com.example.app""#)
        let result = try world.run(mock.sendArguments + ["--sender", "sender.jwk"], input: input)
        let lines = try Self.results(result)
        #expect(lines.count == 4)
        for (index, name) in ["apns-topic", "apns-collapse-id", "apns-id"].enumerated() {
            #expect(lines[index]["status"] == .string("failed"))
            #expect(lines[index]["attempts"] == .number(JSONNumber(0)), "never sent")
            #expect(lines[index]["reason"]?.stringValue?.hasPrefix(name) == true, "\(lines[index])")
        }
        #expect(lines[3]["status"] == .string("sent"))
        #expect(mock.requests().count == 1, "only the good job reached the server")
    }

    @Test("a server that does not negotiate HTTP/2 is refused at once, never retried")
    func http1Refused() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory, http1: true)
        defer { mock.stop() }
        let to = try world.devicePublicJWK()
        let result = try world.run(
            mock.sendArguments + ["--sender", "sender.jwk"], input: Self.job(Self.token("00aa", 1), to) + "\n")
        let line = try #require(try Self.results(result).first)
        #expect(result.status == 1)
        #expect(line["status"] == .string("failed"))
        #expect(line["reason"]?.stringValue?.contains("did not negotiate HTTP/2") == true, "\(line)")
        #expect(line["attempts"] == .number(JSONNumber(1)))
    }

    @Test("a certificate that does not verify fails at once; an oversized answer is cut off and fails")
    func permanentTransportFailures() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory)
        defer { mock.stop() }
        let to = try world.devicePublicJWK()
        // Without --ca-file the mock's self-signed certificate does not verify.
        let untrusted = Array(mock.sendArguments.dropLast(2))
        let tls = try world.run(
            untrusted + ["--sender", "sender.jwk"], input: Self.job(Self.token("00aa", 1), to) + "\n")
        let tlsLine = try #require(try Self.results(tls).first)
        #expect(tlsLine["status"] == .string("failed"))
        #expect(tlsLine["attempts"] == .number(JSONNumber(1)), "a certificate failure is not transient: \(tlsLine)")
        #expect(tlsLine["reason"]?.stringValue?.lowercased().contains("certificate") == true, "\(tlsLine)")

        let huge = try world.run(
            mock.sendArguments + ["--sender", "sender.jwk"], input: Self.job(Self.token("0999", 2), to) + "\n")
        let hugeLine = try #require(try Self.results(huge).first)
        #expect(hugeLine["status"] == .string("failed"))
        #expect(hugeLine["reason"]?.stringValue?.contains("over 65536 bytes") == true, "\(hugeLine)")
        #expect(hugeLine["attempts"] == .number(JSONNumber(1)))
    }

    @Test("send --contract with a job's \"media\": sealed and sent, not refused as a link")
    func contractWithMedia() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory)
        defer { mock.stop() }
        try world.directory.write("contract.json", #"{"schema_versions":[1],"routes":{"inbox":{}}}"#)
        try Data(MediaSamples.media(.png, length: 2_000)).write(to: URL(fileURLWithPath: world.directory.file("a.png")))
        let descriptor = try world.run([
            "media", "seal", "a.png", "--out", "a.psm", "--url", "https://cdn.example.com/a.psm",
        ]).output.trimmingCharacters(in: .newlines)
        let to = try world.devicePublicJWK()
        let job =
            #"{"token":"\#(Self.token("00aa", 1))","topic":"com.example.shop","to":\#(to),"media":\#(descriptor),"#
            + #""payload":{"aps":{"alert":"x"},"type":"inbox","event_id":"e","schema_version":1}}"#
        let result = try world.run(
            mock.sendArguments + ["--sender", "sender.jwk", "--contract", "contract.json"], input: job + "\n")
        #expect(result.status == 0, "\(result.output) \(result.errors)")
        #expect(result.lines.first?.contains(#""status":"sent""#) == true, "\(result.output)")
    }
}
