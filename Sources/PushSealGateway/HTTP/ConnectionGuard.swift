internal import Dispatch
internal import PushSealCore
internal import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Bounds the time each connection may spend on a request, as totals a trickling client cannot
/// stretch: the head must be in within ``HTTPLimits/headSeconds`` of the connection's start (or of
/// its previous answer, on a kept-alive connection), the body within ``HTTPLimits/bodySeconds``
/// of the head. Under pressure it keeps room for new clients: when the server holds nine tenths
/// of its connections, a connection that has been waiting for a head for over a second is closed;
/// and a connection that arrives when all but ``roomKept`` are taken closes one that waits on its
/// client (for a head, for a body, or for the client to read its answer), of the client that
/// holds the most connections (an IPv4 address, an IPv6 /64: ``ClientAddress``), the one of
/// those that has waited longest; never one of a client holding fewer than its share (the
/// connections open over the clients holding them), even while every connection of the one
/// holding the most is being handled. So a new client always gets in, and a client that shares
/// the server with one holding hundreds of connections never loses its place to it; a request
/// whose handler runs is never closed for room.
///
/// Waiting to read an answer counts as waiting on the client: a client that pipelines requests
/// and reads their answers a little at a time keeps its connections busy forever, each always
/// being answered (issue 67). Counting by client rather than by age alone means a legitimate
/// slow upload from one address is not displaced by an attacker's steady stream of new
/// connections from another, each younger than it.
///
/// A connection over its time is shut down (`shutdown(2)`, both ways); libmicrohttpd then sees the
/// end of its input and closes it. The table and the shutdown share one lock with the close
/// notification, which libmicrohttpd sends before it closes the socket, so a descriptor is never
/// shut down after it was closed and reused.
final class ConnectionGuard: Sendable {
    /// Why a connection was closed early, as the metrics count it.
    enum Cause: String, Sendable, CaseIterable {
        /// Its request head took longer than ``HTTPLimits/headSeconds``.
        case slowHead = "slow-head"
        /// Its body took longer than ``HTTPLimits/bodySeconds``.
        case slowBody = "slow-body"
        /// The server was crowded and it had sent no complete head for a second, or it waited on
        /// its client, of the client holding the most connections, when a new connection needed
        /// its place.
        case crowded
    }

    /// What a connection is doing.
    enum Phase {
        /// Waiting for a request head.
        case head
        /// Reading a body.
        case body
        /// The handler runs: not bounded here, never closed for room.
        case handling
        /// The answer is queued, and waits for the client to read it.
        case sending

        /// Whether the connection waits on its client (to send, or to read), and so may give its
        /// place to a new one.
        var waitsOnClient: Bool { self != .handling }
    }

    private struct Tracked {
        let socket: Int32
        let client: ClientAddress?
        var phase: Phase
        var since: ContinuousClock.Instant
        var shutDown = false
    }

    /// The connections open, how many of them are not shut down yet, and how many of those each
    /// client holds.
    private struct Table {
        var entries: [UInt: Tracked] = [:]
        var live = 0
        var liveByClient: [ClientAddress?: Int] = [:]
        let shutDownSocket: @Sendable (Int32) -> Void

        mutating func insert(_ key: UInt, _ connection: Tracked) {
            if let old = entries.updateValue(connection, forKey: key), !old.shutDown { forget(old) }
            live += 1
            liveByClient[connection.client, default: 0] += 1
        }

        mutating func remove(_ key: UInt) {
            if let old = entries.removeValue(forKey: key), !old.shutDown { forget(old) }
        }

        /// Shuts the connection's socket down both ways; libmicrohttpd then closes it.
        mutating func shutDown(_ key: UInt) {
            guard let connection = entries[key], !connection.shutDown else { return }
            shutDownSocket(connection.socket)
            entries[key]?.shutDown = true
            forget(connection)
        }

        /// Counts `connection` no longer.
        private mutating func forget(_ connection: Tracked) {
            live -= 1
            let left = (liveByClient[connection.client] ?? 1) - 1
            liveByClient[connection.client] = left > 0 ? left : nil
        }

        /// The connection to close for room: of those that wait on their client, one of the client
        /// holding the most, the one of those that has waited longest; nil when none waits of a
        /// client holding at least its share (the connections open over the clients holding them),
        /// so that a client with fewer never gives way while the one holding the most is busy.
        func displaced() -> UInt? {
            var chosen: (key: UInt, held: Int, since: ContinuousClock.Instant)?
            for (key, connection) in entries where !connection.shutDown && connection.phase.waitsOnClient {
                let held = liveByClient[connection.client] ?? 0
                guard held * liveByClient.count >= live else { continue }
                if let best = chosen, (held, best.since) <= (best.held, connection.since) { continue }
                chosen = (key, held, connection.since)
            }
            return chosen?.key
        }
    }

    /// How long a head may wait on a crowded server.
    static let crowdedHeadLimit = Duration.seconds(1)

    private let limits: HTTPLimits
    private let capacity: Int
    /// Connections kept free for arrivals: past `capacity - roomKept`, each arrival closes the
    /// oldest unfinished request.
    let roomKept: Int
    private let onClose: @Sendable (Cause) -> Void
    private let connections: Protected<Table>
    private let queue = DispatchQueue(label: "pushseal-gateway.connection-guard")
    private let stopped = Atomic<Bool>(false)

    /// A guard for a server of `capacity` connections; `onClose` counts each early close, and
    /// `shutDown` ends a connection's socket (`shutdown(2)` both ways; the tests watch it).
    init(
        limits: HTTPLimits, capacity: Int, onClose: @escaping @Sendable (Cause) -> Void,
        shutDown: @escaping @Sendable (Int32) -> Void = { _ = Glibc.shutdown($0, Int32(SHUT_RDWR)) }
    ) {
        self.limits = limits
        self.capacity = capacity
        roomKept = max(4, capacity / 16)
        self.onClose = onClose
        connections = Protected(Table(shutDownSocket: shutDown))
        scheduleCheck()
    }

    /// Checks every connection's time five times a second, until ``stop()``.
    private func scheduleCheck() {
        queue.asyncAfter(deadline: .now() + .milliseconds(200)) { [weak self] in
            guard let self, !stopped.load(ordering: .relaxed) else { return }
            enforce(at: .now)
            scheduleCheck()
        }
    }

    /// A connection of `client` was accepted on `socket`: its head is awaited from now. When all
    /// but ``roomKept`` connections are taken, one that waits on its client is closed to make
    /// room: of the client holding the most, the one that has waited longest.
    func opened(_ connection: OpaquePointer, socket: Int32, client: ClientAddress?) {
        let displaced = connections.withLock { table -> Bool in
            table.insert(Self.key(connection), Tracked(socket: socket, client: client, phase: .head, since: .now))
            guard table.live > capacity - roomKept, let key = table.displaced() else { return false }
            table.shutDown(key)
            return true
        }
        if displaced { onClose(.crowded) }
    }

    /// The connection's request head is in: its body is awaited from now.
    func headReceived(_ connection: OpaquePointer) { move(connection, to: .body) }

    /// The whole request is in: the handler runs.
    func handling(_ connection: OpaquePointer) { move(connection, to: .handling) }

    /// The answer is queued: the client is awaited to read it from now.
    func sending(_ connection: OpaquePointer) { move(connection, to: .sending) }

    /// The request was answered (or abandoned): the next head is awaited from now.
    func requestEnded(_ connection: OpaquePointer) { move(connection, to: .head) }

    /// The connection is about to be closed: it is forgotten, before its socket is.
    func closed(_ connection: OpaquePointer) {
        connections.withLock { $0.remove(Self.key(connection)) }
    }

    /// Stops watching.
    func stop() { stopped.store(true, ordering: .relaxed) }

    private func move(_ connection: OpaquePointer, to phase: Phase) {
        connections.withLock { table in
            let key = Self.key(connection)
            table.entries[key]?.phase = phase
            table.entries[key]?.since = .now
        }
    }

    /// Shuts down every connection over its time.
    private func enforce(at now: ContinuousClock.Instant) {
        let causes: [Cause] = connections.withLock { table in
            let crowded = table.entries.count * 10 >= capacity * 9
            var causes: [Cause] = []
            for (key, connection) in table.entries where !connection.shutDown {
                guard let cause = cause(connection, at: now, crowded: crowded) else { continue }
                table.shutDown(key)
                causes.append(cause)
            }
            return causes
        }
        for cause in causes { onClose(cause) }
    }

    private func cause(_ connection: Tracked, at now: ContinuousClock.Instant, crowded: Bool) -> Cause? {
        let elapsed = now - connection.since
        switch connection.phase {
        case .head where elapsed > .seconds(limits.headSeconds): return .slowHead
        case .head where crowded && elapsed > Self.crowdedHeadLimit: return .crowded
        case .body where elapsed > .seconds(limits.bodySeconds): return .slowBody
        case .head, .body, .handling, .sending: return nil
        }
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }
}
