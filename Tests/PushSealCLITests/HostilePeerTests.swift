import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

/// `pushseal send` against an HTTP/2 peer that tries to hang, spin or bloat it
/// (`interop/python/hostile_h2.py`; issue 38, items 7 to 11): every run ends, reports every job,
/// and names what the peer did.
@Suite("pushseal send against a hostile HTTP/2 peer", .serialized)
struct HostilePeerTests {
    /// What `/usr/bin/time` measured of one run, with the run itself.
    struct Measured {
        let result: CLIRunner.Result
        let wallSeconds: Double
        let cpuSeconds: Double
        let peakKilobytes: Int
        let lines: [JSONObject]
    }

    /// Sends `count` sealed jobs to a `mode` server with `options`, under `/usr/bin/time`.
    static func send(_ count: Int, to mode: String, _ options: [String]) throws -> Measured {
        let world = try CLIWorld()
        let server = try HostileHTTP2Server(mode: mode, in: world.directory)
        defer { server.stop() }
        let (_, input) = try SendCommandTests.sealedJobs(count, body: "Shipped", in: world)
        let result = try CLIRunner.run(
            executable: URL(fileURLWithPath: "/usr/bin/time"),
            ["-f", "measured %e %U %S %M", CLIRunner.executable.path] + server.sendArguments + options,
            input: Data(input.utf8), in: world.directory.path)
        let figures = try #require(result.errors.split(separator: "\n").last { $0.hasPrefix("measured ") })
            .split(separator: " ").dropFirst().compactMap { Double($0) }
        try #require(figures.count == 4)
        let lines = try result.lines.map { try #require(try JSONParser.parse($0).objectValue) }
        return Measured(
            result: result, wallSeconds: figures[0], cpuSeconds: figures[1] + figures[2],
            peakKilobytes: Int(figures[3]), lines: lines)
    }

    /// The jobs' reasons, for messages.
    static func reasons(_ run: Measured) -> Set<String> { Set(run.lines.compactMap { $0["reason"]?.stringValue }) }

    @Test("SETTINGS_MAX_CONCURRENT_STREAMS 0: every job fails as the connection's failure, within the deadlines")
    func noStreams() throws {
        let run = try Self.send(20, to: "no-streams", ["--timeout", "2"])
        #expect(run.result.status == 1)
        #expect(run.lines.count == 20 && run.lines.allSatisfy { $0["status"] == .string("failed") })
        #expect(
            run.lines.allSatisfy {
                $0["reason"]?.stringValue?.hasPrefix("the server let no request start in 2") == true
            }, "\(Self.reasons(run))")
        // Four attempts of 2 s each, with 1 to 5 s between them.
        #expect(run.wallSeconds < 45, "\(run.wallSeconds) s")
    }

    @Test("a server that lowers its stream limit to 0 after its first answer: the run ends, and it does not spin")
    func limitLoweredToZero() throws {
        let run = try Self.send(6, to: "zero-after-first", ["--timeout", "2"])
        #expect(run.lines.count == 6, "\(run.result.errors.suffix(300))")
        #expect(run.lines.first?["status"] == .string("sent"))
        #expect(run.wallSeconds < 60, "\(run.wallSeconds) s")
        #expect(
            run.cpuSeconds < run.wallSeconds * 0.3,
            "\(run.cpuSeconds) s of CPU in \(run.wallSeconds) s: waiting for a stream must sleep")
    }

    @Test("1,000 jobs at --concurrency 1000 to a peer that stops reading and keeps sending: all reported, none hangs")
    func deafPeer() throws {
        let run = try Self.send(1_000, to: "deaf", ["--timeout", "3", "--concurrency", "1000"])
        #expect(run.result.status == 1)
        #expect(run.lines.count == 1_000 && run.lines.allSatisfy { $0["status"] == .string("failed") })
        let reasons = Self.reasons(run)
        #expect(
            reasons.allSatisfy { $0.contains("no answer in") || $0.contains("took none of the client's bytes") },
            "\(reasons)")
        #expect(run.wallSeconds < 90, "\(run.wallSeconds) s")
        #expect(run.cpuSeconds < run.wallSeconds * 0.3, "\(run.cpuSeconds) s of CPU in \(run.wallSeconds) s")
    }

    @Test("informational header blocks full of new names: the stream is reset past 16 KiB, memory stays flat")
    func headerFlood() throws {
        let run = try Self.send(3, to: "header-flood", ["--timeout", "10"])
        #expect(run.lines.count == 3 && run.lines.allSatisfy { $0["status"] == .string("failed") })
        #expect(
            run.lines.allSatisfy {
                $0["reason"]?.stringValue?.contains("response headers were over 16384 bytes") == true
            }, "\(Self.reasons(run))")
        #expect(run.peakKilobytes < 100_000, "peak \(run.peakKilobytes) KiB")
    }

    @Test(
        "a protocol error nghttp2 detects ends the connection at once, with its reason",
        arguments: ["push-promise", "unopened-headers"])
    func protocolErrors(_ mode: String) throws {
        let run = try Self.send(1, to: mode, [])
        let line = try #require(run.lines.first)
        #expect(line["status"] == .string("failed"))
        let reason = line["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("HTTP/2 protocol error from the server: ") && !reason.contains("silent"), "\(reason)")
        // Four attempts with 1 to 5 s between them; each found at once, not after 15 s of PING.
        #expect(run.wallSeconds < 25, "\(run.wallSeconds) s")
    }
}
