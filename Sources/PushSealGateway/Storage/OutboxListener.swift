#if canImport(CLibPQ)
    internal import Foundation
    internal import Synchronization

    /// Listens on its own PostgreSQL connection for `NOTIFY pushseal_outbox`, sent when any
    /// instance accepts a push, and wakes this instance's idle workers. When the database is away
    /// it reconnects every second; meanwhile the workers' polling goes on.
    final class OutboxListener: Sendable {
        private let stopping = Atomic(false)
        private let stopped = DispatchSemaphore(value: 0)

        /// Starts listening with connections from `pool`; `onWork` runs on each notification.
        init(pool: PostgresPool, onWork: @escaping @Sendable () -> Void) {
            let thread = Thread { [self] in
                defer { stopped.signal() }
                while !stopping.load(ordering: .relaxed) {
                    do {
                        let connection = try pool.connect()
                        try connection.execute("LISTEN \(PostgresGatewayStore.channel)")
                        while !stopping.load(ordering: .relaxed) {
                            if try connection.waitForNotification(timeoutMilliseconds: 250) { onWork() }
                        }
                    } catch {
                        Thread.sleep(forTimeInterval: 1)
                    }
                }
            }
            thread.name = "pushseal-outbox-listener"
            thread.start()
        }

        /// Stops listening; returns once the connection is closed.
        func stop() {
            stopping.store(true, ordering: .relaxed)
            stopped.wait()
        }
    }
#endif
