package import PushSealGatewayModel

#if canImport(CLibPQ)
    internal import Foundation
    internal import Synchronization

    /// Listens on its own PostgreSQL connection for `NOTIFY pushseal_outbox`, sent when any
    /// instance accepts a push with the kinds of its deliveries as payload (``payload(kinds:)``),
    /// and wakes this instance's idle workers of those kinds. When the database is away it
    /// reconnects every second; meanwhile the workers' polling goes on.
    package final class OutboxListener: Sendable {
        private let stopping = Atomic(false)
        private let stopped = DispatchSemaphore(value: 0)

        /// The payload of a push's notification: the kinds of its deliveries, comma separated
        /// (`apns`, `webpush`, `apns,webpush`).
        package static func payload(kinds: Set<DeliveryKind>) -> String {
            DeliveryKind.allCases.filter(kinds.contains).map(\.rawValue).joined(separator: ",")
        }

        /// The kinds a notification's `payload` names; every kind when it names none it knows
        /// (an empty payload, as gateways before 1.3.2 and a bare `NOTIFY` send).
        package static func kinds(payload: String) -> Set<DeliveryKind> {
            let named = Set(payload.split(separator: ",").compactMap { DeliveryKind(rawValue: String($0)) })
            return named.isEmpty ? Set(DeliveryKind.allCases) : named
        }

        /// Starts listening with connections from `pool`; `onWork` runs on each batch of
        /// notifications, with the kinds they name.
        package init(pool: PostgresPool, onWork: @escaping @Sendable (Set<DeliveryKind>) -> Void) {
            let thread = Thread { [self] in
                defer { stopped.signal() }
                while !stopping.load(ordering: .relaxed) {
                    do {
                        let connection = try pool.connect()
                        try connection.execute("LISTEN \(PostgresGatewayStore.channel)")
                        while !stopping.load(ordering: .relaxed) {
                            let payloads = try connection.waitForNotifications(timeoutMilliseconds: 250)
                            if !payloads.isEmpty {
                                onWork(payloads.reduce(into: []) { $0.formUnion(Self.kinds(payload: $1)) })
                            }
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
        package func stop() {
            stopping.store(true, ordering: .relaxed)
            stopped.wait()
        }
    }
#endif
