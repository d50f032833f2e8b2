import Foundation
import PushSealTestSupport

/// Attackers that hold a server's connections (`interop/python/slow_clients.py`): each connects
/// from one of a set of loopback addresses, sends part of a request head, then one more byte every
/// `interval` seconds, never finishing it (slowloris); or pipelines requests and reads their
/// answers a little at a time (a slow reader). They live in a process of their own, so that
/// the test runner never holds a thousand sockets (which crashed Foundation's `Process.run` in a
/// test running beside). Stopped when released.
final class SlowClients: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let condition = NSCondition()
    private var reports = 0
    private var lastOpen: Int?
    private var opened: Int?

    /// Opens `count` connections to `127.0.0.1:port`, spread evenly over `sources`, and returns
    /// once they are made (a connection the server refuses at once is not counted as opened);
    /// with `reopen`, each one the server closes is opened again five times a second. With
    /// `pipeline`, each is a slow reader instead of a slow head: it pipelines `GET pipeline`
    /// requests and reads 8 KB of the answers every `interval` seconds.
    init(
        count: Int, to port: UInt16, from sources: [String], interval: Double = 2, reopen: Bool = false,
        pipeline: String? = nil
    ) throws {
        let output = Pipe()
        process.executableURL = try PythonPeer.interpreter.get()
        process.arguments =
            [
                PythonPeer.directory.appendingPathComponent("slow_clients.py").path, "--port", "\(port)", "--count",
                "\(count)", "--sources", sources.joined(separator: ","), "--interval", "\(interval)", "--duration",
                "120",
            ] + (reopen ? ["--reopen"] : []) + (pipeline.map { ["--pipeline", $0] } ?? [])
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        let reader = Thread { [self] in
            var pending = Data()
            while true {
                let data = output.fileHandleForReading.availableData
                guard !data.isEmpty else { break }
                pending.append(data)
                while let newline = pending.firstIndex(of: 0x0A) {
                    record(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
        }
        reader.start()
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(60)
        while opened == nil, condition.wait(until: deadline) {}
        guard opened != nil else { throw NotStarted() }
    }

    /// `slow_clients.py` reported no connections within a minute.
    struct NotStarted: Error {}

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// How many connections the server has not closed, as the clients report it next.
    var openCount: Int {
        condition.lock()
        defer { condition.unlock() }
        let seen = reports
        let deadline = Date().addingTimeInterval(5)
        while reports == seen, condition.wait(until: deadline) {}
        return lastOpen ?? -1
    }

    private func record(_ line: String) {
        let parts = line.split(separator: " ")
        guard parts.count == 2, let number = Int(parts[1]) else { return }
        condition.lock()
        defer { condition.unlock() }
        switch parts[0] {
        case "opened": opened = number
        case "open":
            lastOpen = number
            reports += 1
        default: return
        }
        condition.broadcast()
    }
}
