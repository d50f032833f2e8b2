import Foundation

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

    /// Runs `arguments` as ``start(_:errors:blocking:newSession:)`` does and waits for them;
    /// true when they exited normally with status 0.
    package static func run(_ arguments: [String], errors: String? = nil) throws -> Bool {
        let child = try start(arguments, errors: errors)
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7F == 0 && (status >> 8) & 0xFF == 0
    }

    /// A port on 127.0.0.1 that nobody listened on a moment ago.
    package static func freeLoopbackPort() throws -> UInt16 {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let port: UInt16? = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                guard bind(socket, pointer, length) == 0, getsockname(socket, pointer, &length) == 0 else { return nil }
                return UInt16(bigEndian: UnsafeRawPointer(pointer).load(fromByteOffset: 2, as: UInt16.self))
            }
        }
        guard let port else { throw Failure(description: "no free port on 127.0.0.1") }
        return port
    }
}
