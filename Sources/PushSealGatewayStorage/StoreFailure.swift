/// Why a store's statement failed, as an operator acts on it: the answer's message, the
/// `store-error` log line and `pushseal_gateway_store_errors_total{cause}` name it (gateway-v1.md,
/// "Storage faults").
package enum StoreFailureCause: String, Sendable, CaseIterable {
    /// The database cannot be reached: no connection could be made, or it was lost.
    case unreachable
    /// The database did not answer in time (a lock, a connection or a commit stayed busy), or
    /// cancelled the work itself (a deadlock, a serialization failure).
    case busy
    /// The disk is full.
    case full
    /// The disk reports I/O errors.
    case io
    /// The database says its file is malformed (on SQLite, a disk that returns errors makes it say
    /// so too, though the file may be sound: `PRAGMA integrity_check` tells).
    case corrupt
    /// The database refuses writes.
    case readOnly = "read-only"
    /// Any other failure: the work's own (a constraint), or one the gateway does not name.
    case other

    /// What the API's 503 says of it.
    package var explanation: String {
        switch self {
        case .unreachable: "the gateway cannot reach its database"
        case .busy: "the database did not answer in time"
        case .full: "the gateway cannot write to its database: the disk is full"
        case .io: "the gateway cannot write to its database: the disk reports I/O errors"
        case .corrupt: "the database reports its file malformed (a failing disk makes it say so too)"
        case .readOnly: "the gateway cannot write to its database: it is read-only"
        case .other: "the database failed"
        }
    }
}

/// A failure of a store's statement that says why (``cause``), and whether running the same work
/// again may succeed: the database cancelled it for reasons of its own (a deadlock, a
/// serialization failure), a lock or a connection stayed busy past its wait, or the connection was
/// lost. Work that failed so is tried again where losing it costs more than a wait (a worker's
/// recording of what was sent); any other failure is the work's own (a constraint, a full disk),
/// and trying again fails again.
package protocol StoreFailure: Error {
    /// Why it failed.
    var cause: StoreFailureCause { get }
    /// True when trying the same work again may succeed.
    var isTransient: Bool { get }
    /// True when the work may still be committed though its caller gave up (a commit that did
    /// not end in time).
    var outcomeUnknown: Bool { get }
}

extension StoreFailure {
    /// False unless a store says so.
    package var outcomeUnknown: Bool { false }
}

/// Whether `error`, thrown by a store, left its work's outcome unknown
/// (``StoreFailure/outcomeUnknown``).
package func isOutcomeUnknownStoreFailure(_ error: any Error) -> Bool {
    (error as? any StoreFailure)?.outcomeUnknown ?? false
}

/// Whether `error`, thrown by a store, may pass when the same work is tried again
/// (``StoreFailure/isTransient``); false for an error that is no store's.
package func isTransientStoreFailure(_ error: any Error) -> Bool {
    (error as? any StoreFailure)?.isTransient ?? false
}

/// Why `error`, thrown by a store, failed (``StoreFailure/cause``); `other` for an error that is
/// no store's.
package func storeFailureCause(_ error: any Error) -> StoreFailureCause {
    (error as? any StoreFailure)?.cause ?? .other
}
