import Foundation

/// A throwaway PostgreSQL server for the tests, from Debian's `postgresql` package: `initdb` into a
/// temporary folder as the unprivileged `postgres` user (when the tests run as root, which
/// PostgreSQL refuses to be), listening on a free loopback port with trust authentication. One
/// shared server serves the whole test process, each test in a database of its own; a test that
/// stops its server makes one of its own. A watchdog stops a server and removes its folder when
/// the process ends, however it ends.
package final class PostgresTestServer: @unchecked Sendable {
    /// Why the server could not be started.
    package struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        package let description: String
    }

    /// The server of this process, started on first use.
    package static let shared: Result<PostgresTestServer, Failure> = Result { try PostgresTestServer() }
        .mapError { $0 as? Failure ?? Failure(description: "\($0)") }

    /// Its port on 127.0.0.1.
    package let port: Int
    private let folder: String
    private let binaries: String
    private let lock = NSLock()
    private var databases = 0

    /// Starts a server of the caller's own (to stop and start it without disturbing others).
    package init() throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard
            let version = versions.compactMap(Int.init).sorted().last(where: {
                FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb")
            })
        else {
            throw Failure(description: "PostgreSQL is not installed (Debian: apt-get install postgresql; make deps)")
        }
        binaries = "/usr/lib/postgresql/\(version)/bin"
        folder = "/tmp/pushseal-postgres-\(getpid())-\(UUID().uuidString.prefix(8))"
        port = Self.freePort()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if getuid() == 0 { try Self.run(["/bin/chown", "postgres", folder]) }
        try run([
            "\(binaries)/initdb", "-D", "\(folder)/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync",
        ])
        try start()
        try watch()
    }

    /// Starts the server (again, after ``stop()``), waiting until it accepts connections.
    package func start() throws {
        try run([
            "\(binaries)/pg_ctl", "-D", "\(folder)/data", "-l", "\(folder)/server.log", "-w", "-t", "30", "-o",
            "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c max_connections=500 -c fsync=off", "start",
        ])
    }

    /// Stops the server at once (`immediate`: what a crash or a power cut leaves, recovered at the next start).
    package func stop() throws {
        try run(["\(binaries)/pg_ctl", "-D", "\(folder)/data", "-m", "immediate", "-w", "stop"])
    }

    /// A new, empty database: its `postgres://` URL.
    package func createDatabase() throws -> String {
        let name = lock.withLock {
            databases += 1
            return "pushseal_test_\(databases)"
        }
        try run(["\(binaries)/createdb", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", name])
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// The server's files, for tests that search what it stored.
    package var dataDirectory: String { "\(folder)/data" }

    /// Stops the server and removes its folder once this process is gone.
    private func watch() throws {
        let stop = "\(binaries)/pg_ctl -D \(folder)/data -m immediate stop"
        let script =
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(Self.asPostgres(stop)) >/dev/null 2>&1; rm -rf \(folder)"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let words: [String] = ["/bin/sh", "-c", script]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // In a session of its own, so that the test runner's clean-up of its process group spares it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(0x80))  // POSIX_SPAWN_SETSID, which Swift does not import
        var watchdog: pid_t = 0
        guard posix_spawn(&watchdog, "/bin/sh", &actions, &attributes, &argv, environ) == 0 else {
            throw Failure(description: "the watchdog could not be started")
        }
    }

    /// `command` as the `postgres` user when this process is root.
    private static func asPostgres(_ command: String) -> String {
        getuid() == 0 ? "/usr/sbin/runuser -u postgres -- \(command)" : command
    }

    private func run(_ arguments: [String]) throws {
        let command = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + arguments : arguments
        try Self.run(command, errorsTo: "\(folder)/commands.log")
    }

    /// Runs `arguments` and waits for them; their standard error goes to the file `log`, or
    /// nowhere. posix_spawn and waitpid, not Foundation's Process, whose wait missed the end of a
    /// `runuser pg_ctl start` here (the server it leaves behind holds no descriptor of ours).
    private static func run(_ arguments: [String], errorsTo log: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        guard posix_spawn(&child, arguments[0], &actions, nil, &argv, environ) == 0 else {
            throw Failure(description: "\(arguments[0]) could not be started")
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        // Exited normally with status 0.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            let message = log.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
            throw Failure(description: "\(arguments.joined(separator: " ")) failed: \(message)")
        }
    }

    /// A port that was free a moment ago.
    private static func freePort() -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
