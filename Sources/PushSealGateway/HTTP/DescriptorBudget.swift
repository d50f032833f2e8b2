internal import PushSealGatewayModel
internal import PushSealGatewayStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The file descriptors the process may open, shared between HTTP connections and everything the
/// gateway itself must keep opening: APNs connections, database connections and files. The HTTP
/// server is given what is left after a reserve, so that a flood of connections can never starve
/// the workers or the database of descriptors.
enum DescriptorBudget {
    /// Descriptors kept whatever the configuration: standard streams, the listening socket,
    /// libmicrohttpd's own, SQLite's files, the configured files read at start, certificates.
    static let baseReserve = 64
    /// Descriptors kept per delivery worker: a connection per APNs host, one going away, and the
    /// two ends of its feed's wake (``DeliveryFeed/landed``, an APNs worker's). An APNs worker
    /// counts once per key, since it keeps connections per key (``APNsKeyRing``).
    static let perWorker = 6
    /// The fewest HTTP connections the gateway starts with.
    static let minimumConnections = 16

    /// Raises the process's soft limit on open files to its hard limit; the limit in force.
    static func raiseLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
    }

    /// The descriptors open now (those a parent left open count too), from `/proc/self/fd`; 0
    /// where it cannot be read.
    static func openNow() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != 0x2E { count += 1 }  // not "." or ".."
        }
        return max(0, count - 1)  // the directory's own descriptor
    }

    /// The HTTP connections the server may hold: the configured number, or fewer when the
    /// process's `descriptors`, less those `open` already, the reserve for `workers` and
    /// `databaseConnections`, and the server's room for connections being closed
    /// (`HTTPServer.closingRoom(for:)`), allow fewer.
    /// - Throws: ``GatewayError`` when fewer than ``minimumConnections`` would be left.
    static func connections(
        configured: Int, descriptors: Int, open: Int, workers: Int, databaseConnections: Int
    ) throws(GatewayError) -> Int {
        let reserve = baseReserve + workers * perWorker + databaseConnections + open
        // The most connections that fit with their room for closing: at most a fifth fewer
        // than what is left, so the search is short (once, at start).
        let left = descriptors - reserve
        var held = min(configured, left)
        while held > 0 && held + HTTPServer.closingRoom(for: held) > left { held -= 1 }
        guard held >= minimumConnections else {
            let needed = reserve + minimumConnections + HTTPServer.closingRoom(for: minimumConnections)
            throw GatewayError(
                "the process may open \(descriptors) files, \(open) are open, and the gateway keeps \(reserve - open) "
                    + "for its workers and database: raise the limit (ulimit -n) to at least \(needed)")
        }
        return held
    }
}
