import Foundation
import Synchronization

/// Child processes started with posix_spawn, for servers the tests run (a gateway, PostgreSQL and
/// its watchdog). Foundation's `Process` is not used there: its wait missed the end of a
/// `runuser pg_ctl start`, and it cannot block signals in the child or start a new session.
package enum ChildProcess {
    /// A child that could not be started.
    package struct Failure: Error, CustomStringConvertible {
        /// What could not be started.
        package let description: String
    }

    /// Starts `arguments` (the first is the executable's path), its input and output on
    /// `/dev/null` and its standard error on the file `errors` (created, truncated) when given.
    /// - Parameters:
    ///   - blocking: signals blocked in the child from the start, as a careless parent may leave them.
    ///   - newSession: a session of its own, so that a test runner's clean-up of its process group spares it.
    /// - Returns: the child's process id.
    package static func start(
        _ arguments: [String], errors: String? = nil, blocking blocked: [Int32] = [], newSession: Bool = false
    ) throws -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in blocked { sigaddset(&mask, signal) }
        posix_spawnattr_setsigmask(&attributes, &mask)
        // 0x80: POSIX_SPAWN_SETSID, which Swift does not import.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK) | (newSession ? 0x80 : 0))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errors ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: Int32 = 0
        guard posix_spawn(&child, arguments[0], &actions, &attributes, &argv, environ) == 0 else {
            throw Failure(description: "\(arguments[0]) could not be started")
        }
        return child
    }

    /// Stops the child `pid` (SIGTERM) and waits for it to end.
    package static func stop(_ pid: Int32) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Runs `arguments` as ``start(_:errors:blocking:newSession:)`` does and waits for them;
    /// true when they exited normally with status 0.
    package static func run(_ arguments: [String], errors: String? = nil) throws -> Bool {
        let child = try start(arguments, errors: errors)
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7F == 0 && (status >> 8) & 0xFF == 0
    }

    /// A port on 127.0.0.1 that nobody used a moment ago, below the kernel's range of ephemeral
    /// ports and never handed out before in this process. A server stopped and started again on
    /// it (a killed instance, a restarted PostgreSQL) finds it free: a port from the ephemeral
    /// range, as binding port 0 gives, may meanwhile be the source port of an outgoing connection.
    package static func freeLoopbackPort() throws -> UInt16 {
        let ephemeralStart = ephemeralPorts().lowerBound
        guard ephemeralStart > lowestPort + 1_000 else {
            throw Failure(description: "no port range below \(ephemeralStart)")
        }
        for _ in 0..<1_000 {
            let candidate = UInt16.random(in: lowestPort..<ephemeralStart)
            guard handedOut.withLock({ $0.insert(candidate).inserted }), canListen(on: candidate) else { continue }
            return candidate
        }
        throw Failure(description: "no free port on 127.0.0.1 in \(lowestPort)..<\(ephemeralStart)")
    }

    /// The lowest port ``freeLoopbackPort()`` picks.
    private static let lowestPort: UInt16 = 10_000

    /// The ports handed out so far, each once.
    private static let handedOut = Mutex<Set<UInt16>>([])

    /// The kernel's range of ephemeral ports (`/proc/sys/net/ipv4/ip_local_port_range`), or
    /// Linux's default where it cannot be read.
    private static func ephemeralPorts() -> ClosedRange<UInt16> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let bounds = text.split(whereSeparator: \.isWhitespace).compactMap { UInt16($0) }
        guard bounds.count == 2, bounds[0] <= bounds[1] else { return 32_768...60_999 }
        return bounds[0]...bounds[1]
    }

    /// Whether a socket can be bound to `port` on 127.0.0.1 now.
    private static func canListen(on port: UInt16) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
