internal import Dispatch
internal import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Bounds the time each connection may spend on a request, as totals a trickling client cannot
/// stretch: the head must be in within ``HTTPLimits/headSeconds`` of the connection's start (or of
/// its previous answer, on a kept-alive connection), the body within ``HTTPLimits/bodySeconds``
/// of the head. Under pressure it keeps room for requests that complete: when the server holds
/// nine tenths of its connections, a connection that has been waiting for a head for over a
/// second is closed; and a connection that arrives when all but ``roomKept`` are taken closes the
/// one that has waited longest for its head or body, so a new client is always let in, and only
/// a client that never finishes its request loses its place (however many addresses an attacker
/// trickles from, each new one displaces the oldest trickle, never a request being answered).
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
        /// The server was crowded and it had sent no complete head for a second, or it had waited
        /// longest for its head or body when a new connection needed its place.
        case crowded
    }

    /// What a connection is doing.
    private enum Phase {
        /// Waiting for a request head.
        case head
        /// Reading a body.
        case body
        /// The handler runs, or the answer is being written: not bounded here.
        case answering
    }

    private struct Tracked {
        let socket: Int32
        var phase: Phase
        var since: ContinuousClock.Instant
        var shutDown = false
    }

    /// The connections open, and how many of them are not shut down yet.
    private struct Table {
        var entries: [UInt: Tracked] = [:]
        var live = 0

        mutating func insert(_ key: UInt, _ connection: Tracked) {
            if let old = entries.updateValue(connection, forKey: key), !old.shutDown { live -= 1 }
            live += 1
        }

        mutating func remove(_ key: UInt) {
            if let old = entries.removeValue(forKey: key), !old.shutDown { live -= 1 }
        }

        /// Shuts the connection's socket down both ways; libmicrohttpd then closes it.
        mutating func shutDown(_ key: UInt) {
            guard let connection = entries[key], !connection.shutDown else { return }
            shutdown(connection.socket, Int32(SHUT_RDWR))
            entries[key]?.shutDown = true
            live -= 1
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
    private let connections = Mutex(Table())
    private let queue = DispatchQueue(label: "pushseal-gateway.connection-guard")
    private let stopped = Atomic<Bool>(false)

    /// A guard for a server of `capacity` connections; `onClose` counts each early close.
    init(limits: HTTPLimits, capacity: Int, onClose: @escaping @Sendable (Cause) -> Void) {
        self.limits = limits
        self.capacity = capacity
        roomKept = max(4, capacity / 16)
        self.onClose = onClose
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

    /// A connection was accepted on `socket`: its head is awaited from now. When all but
    /// ``roomKept`` connections are taken, the one that has waited longest for its head or body
    /// is closed to make room.
    func opened(_ connection: OpaquePointer, socket: Int32) {
        let displaced = connections.withLock { table -> Bool in
            table.insert(Self.key(connection), Tracked(socket: socket, phase: .head, since: .now))
            guard table.live > capacity - roomKept else { return false }
            let oldest = table.entries.lazy.filter { !$0.value.shutDown && $0.value.phase != .answering }
                .min { $0.value.since < $1.value.since }
            guard let key = oldest?.key else { return false }
            table.shutDown(key)
            return true
        }
        if displaced { onClose(.crowded) }
    }

    /// The connection's request head is in: its body is awaited from now.
    func headReceived(_ connection: OpaquePointer) { move(connection, to: .body) }

    /// The whole request is in: the handler runs.
    func answering(_ connection: OpaquePointer) { move(connection, to: .answering) }

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
        case .head, .body, .answering: return nil
        }
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }
}
