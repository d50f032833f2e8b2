/// Whether a store can write now, as readiness, the status page and
/// `pushseal_gateway_store_writable` report it (gateway-v1.md, "Storage faults"). A store learns
/// it from its own writes (on a quiet gateway, the heartbeat's, every 10 s), so it holds until the
/// next write says otherwise.
package enum StoreWriteHealth: Sendable, Equatable {
    /// The last write committed, or none was tried.
    case writable
    /// The last write failed for a cause that means the store cannot write (the disk full, I/O
    /// errors, a malformed file, read-only, the database out of reach).
    case failing(StoreFailureCause)
    /// A write has run since this instant without ending, longer than a commit takes: the disk
    /// does not answer.
    case stalled(since: ContinuousClock.Instant)

    /// True when the store can write.
    package var isWritable: Bool { self == .writable }

    /// What the status page and the logs say of it; nil when writable.
    package var problem: String? {
        switch self {
        case .writable: nil
        case .failing(let cause): cause.explanation
        case .stalled(let since):
            "a write has waited \(Int((ContinuousClock.now - since).components.seconds)) s on the database: the disk "
                + "does not answer"
        }
    }
}

extension StoreFailureCause {
    /// Whether a failure for this cause means the store cannot write, whatever the work: not a
    /// busy lock or a deadlock (the next write may pass), nor the work's own fault.
    package var meansUnwritable: Bool {
        switch self {
        case .unreachable, .full, .io, .corrupt, .readOnly: true
        case .busy, .other: false
        }
    }
}
