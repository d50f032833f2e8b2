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

    /// Whether commits wait for the disk (`fsync`), as a production server's do; the tests'
    /// servers skip it, which changes no result of theirs.
    private let durable: Bool

    /// Starts a server of the caller's own (to stop and start it without disturbing others);
    /// `durable` for one whose commits reach the disk, as the bench measures them.
    package init(durable: Bool = false) throws {
        self.durable = durable
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
        port = Int(try ChildProcess.freeLoopbackPort())
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
            "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c max_connections=500 -c fsync=\(durable ? "on" : "off")",
            "start",
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
        try run(["\(binaries)/createdb"] + connection + [name])
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// Drops the database of `url` (as ``createDatabase()`` made it), closing its connections:
    /// what a gateway sees when its database is gone.
    package func dropDatabase(_ url: String) throws {
        guard let name = url.split(separator: "/").last.map(String.init) else {
            throw Failure(description: "no database name in \(url)")
        }
        try run(["\(binaries)/dropdb", "--force"] + connection + [name])
    }

    /// Backs up the database of `url` with `pg_dump -Fc` and restores the dump with `pg_restore`
    /// into a new database, as gateway-v1.md's "Backups and restores" says; the new one's URL.
    package func restoredCopy(of url: String) throws -> String {
        guard let name = url.split(separator: "/").last.map(String.init) else {
            throw Failure(description: "no database name in \(url)")
        }
        let dump = "\(folder)/\(name)-\(RandomName.make()).dump"
        try run(["\(binaries)/pg_dump", "-Fc", "-f", dump] + connection + [name])
        let copy = try createDatabase()
        let copyName = copy.split(separator: "/").last.map(String.init) ?? ""
        try run(["\(binaries)/pg_restore", "--no-owner", "-d", copyName] + connection + [dump])
        return copy
    }

    /// How the client commands reach the server, as its superuser.
    private var connection: [String] { ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres"] }

    /// The server's files, for tests that search what it stored.
    package var dataDirectory: String { "\(folder)/data" }

    /// The process id of the running server's postmaster (the first line of its `postmaster.pid`),
    /// whose children are its backends; nil when it is not running.
    package var postmaster: Int32? {
        guard let lines = try? String(contentsOfFile: "\(dataDirectory)/postmaster.pid", encoding: .utf8) else {
            return nil
        }
        return lines.split(separator: "\n").first.flatMap { Int32($0) }
    }

    /// Stops the server and removes its folder once this process is gone.
    private func watch() throws {
        let stop = "\(binaries)/pg_ctl -D \(folder)/data -m immediate stop"
        let script =
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(Self.asPostgres(stop)) >/dev/null 2>&1; rm -rf \(folder)"
        _ = try ChildProcess.start(["/bin/sh", "-c", script], newSession: true)
    }

    /// What runs a command as the `postgres` user when this process is root (PostgreSQL refuses root).
    private static let asPostgres = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []

    /// `command`, a shell command line, as the `postgres` user.
    private static func asPostgres(_ command: String) -> String {
        (asPostgres + [command]).joined(separator: " ")
    }

    private func run(_ arguments: [String]) throws {
        try Self.run(Self.asPostgres + arguments, errorsTo: "\(folder)/commands.log")
    }

    private static func run(_ arguments: [String], errorsTo log: String? = nil) throws {
        guard try ChildProcess.run(arguments, errors: log) else {
            let message = log.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
            throw Failure(description: "\(arguments.joined(separator: " ")) failed: \(message)")
        }
    }
}
