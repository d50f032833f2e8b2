import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

/// A disk that fills, fails or freezes under a running gateway on SQLite (gateway-v1.md, "Storage
/// faults"): `interop/python/faulty_fs.py` mounts a FUSE file system over a folder and fails on
/// demand. Each fault must show: a 503 that names it, within the documented wait; `/readyz` 503;
/// `pushseal_gateway_store_writable` 0 and the failures counted by cause; the status page's
/// attention; and, with no traffic at all, the heartbeat's writes find it within about 10 s.
@Suite("pushseal-gateway on a failing disk", .serialized)
struct GatewayStorageFaultTests {
    /// A FUSE file system over a folder of its own that fails as ``set(_:)`` says; unmounted (after
    /// letting any frozen write go) when released.
    final class FaultyDisk {
        let directory = TemporaryDirectory()
        private let process = Process()
        /// Its standard input: closing it unmounts (its FUSE loop ignores signals).
        private let input = Pipe()

        /// Where the file system is mounted.
        var mount: String { directory.file("mount") }

        init() throws {
            process.executableURL = try PythonPeer.interpreter.get()
            process.arguments = [
                PythonPeer.directory.appendingPathComponent("faulty_fs.py").path, "--backing",
                directory.file("backing"), "--mount", directory.file("mount"), "--control", directory.file("mode"),
                "--ready", directory.file("ready"),
            ]
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let ready = eventually(20) { FileManager.default.fileExists(atPath: directory.file("ready")) }
            guard ready else { throw NotMounted() }
        }

        deinit {
            set("ok")
            try? input.fileHandleForWriting.close()
            if !eventually(10, { !process.isRunning }) {
                kill(process.processIdentifier, SIGKILL)
                _ = try? CLIRunner.run(
                    executable: URL(fileURLWithPath: "/usr/bin/fusermount"), ["-u", "-z", mount], input: Data(), in: nil
                )
            }
        }

        /// faulty_fs.py did not mount within 20 s (no `/dev/fuse`, or no `fusermount`).
        struct NotMounted: Error {}

        /// `ok`, `full`, `eio` or `freeze` (faulty_fs.py's modes).
        func set(_ mode: String) {
            try? Data((mode + "\n").utf8).write(to: URL(fileURLWithPath: directory.file("mode")))
        }
    }

    /// A gateway on the faulty disk, with the device `phone` registered.
    static func world(on disk: FaultyDisk) throws -> GatewayProcessWorld {
        let world = try GatewayProcessWorld(database: "sqlite:\(disk.mount)/gateway.db")
        try world.start()
        #expect(try world.registerDevice() == 201)
        return world
    }

    static let push = #"{"to":{"user":"u"},"payload":{"aps":{"alert":"hi"}}}"#

    /// `POST /v1/pushes`: the status, the message, and how long it took.
    static func push(_ world: GatewayProcessWorld) throws -> (status: Int, message: String, seconds: Double) {
        let began = Date()
        let answer = try GatewayHTTP.send(
            "POST", "http://127.0.0.1:\(world.port)/v1/pushes", body: Data(push.utf8), token: world.token)
        let message = answer.flatMap { try? JSONParser.parse(Array($0.body)) }?.objectValue?["error"]?.objectValue?[
            "message"]?.stringValue
        return (answer?.status ?? 0, message ?? "", Date().timeIntervalSince(began))
    }

    /// `GET path`'s status and body as text.
    static func get(_ world: GatewayProcessWorld, _ path: String) throws -> (status: Int, text: String) {
        let answer = try GatewayHTTP.send("GET", "http://127.0.0.1:\(world.port)\(path)", token: world.token)
        return (answer?.status ?? 0, answer.map { String(decoding: $0.body, as: UTF8.self) } ?? "")
    }

    @Test(
        "a full disk, then a failing one: 503 naming it within 2 s, readiness 503, the gauge 0 and the cause counted, the status page says it; all well again once the disk is",
        arguments: [("full", "the disk is full", "full"), ("eio", "the disk reports I/O errors", "io")])
    func failingDisk(mode: String, says: String, cause: String) throws {
        let disk = try FaultyDisk()
        let world = try Self.world(on: disk)
        #expect(try Self.push(world).status == 202)
        disk.set(mode)
        let refused = try Self.push(world)
        #expect(refused.status == 503 && refused.message.contains(says) && refused.seconds < 2.5, "\(refused)")
        let ready = try Self.get(world, "/readyz")
        #expect(ready.status == 503 && ready.text.contains(says), "\(ready)")
        let metrics = try Self.get(world, "/metrics").text
        #expect(metrics.contains("pushseal_gateway_store_writable 0"), "\(metrics.prefix(300))")
        #expect(!metrics.contains(#"pushseal_gateway_store_errors_total{cause="\#(cause)"} 0"#))
        // The status page reads what a full disk still serves; a failing one fails reads too (SQLite
        // then says its file is malformed, and the answer says a failing disk makes it say so), and
        // the page's answer is the 503 that names it.
        let status = try Self.get(world, "/v1/status")
        #expect(
            (status.status == 200 && status.text.contains("cannot write to the database"))
                || (mode == "eio" && status.status == 503 && status.text.contains("a failing disk")), "\(status)")
        let logged = world.logLines().filter { $0["event"] == .string("store-error") }
        #expect(logged.contains { $0["cause"] == .string(cause) }, "\(logged.suffix(3))")
        disk.set("ok")
        #expect(try Self.push(world).status == 202)
        #expect(try Self.get(world, "/readyz").status == 200)
        #expect(try Self.get(world, "/metrics").text.contains("pushseal_gateway_store_writable 1"))
    }

    @Test(
        "a frozen disk: a push is answered 503 within the documented wait, saying it may still be stored; readiness 503 while it lasts; the push lands once the disk thaws"
    )
    func frozenDisk() throws {
        let disk = try FaultyDisk()
        let world = try Self.world(on: disk)
        disk.set("freeze")
        let held = try Self.push(world)
        #expect(held.status == 503 && held.message.contains("may still be stored"), "\(held)")
        #expect(held.seconds < 5, "a caller waits at most 2 s to start and 2 s for its commit: \(held.seconds) s")
        let waiting = try Self.push(world)
        #expect(waiting.status == 503 && waiting.seconds < 3, "the next caller waits its turn 2 s: \(waiting)")
        let ready = try Self.get(world, "/readyz")
        #expect(ready.status == 503 && ready.text.contains("does not answer"), "\(ready)")
        disk.set("ok")
        #expect(eventually(15) { (try? Self.get(world, "/readyz").status) == 200 })
        #expect(eventually(15) { world.apns.requests().count >= 1 }, "the push held by the frozen disk was stored")
    }

    @Test("a quiet gateway (no request at all): the heartbeat's write finds a full disk within about 10 s")
    func quietGateway() throws {
        let disk = try FaultyDisk()
        let world = try Self.world(on: disk)
        disk.set("full")
        let found = eventually(15) {
            (try? Self.get(world, "/metrics").text.contains("pushseal_gateway_store_writable 0")) == true
        }
        #expect(found, "the gauge went to 0 with no traffic")
        #expect(try Self.get(world, "/readyz").status == 503)
    }
}
