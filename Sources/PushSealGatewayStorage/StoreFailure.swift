/// A failure of a store's statement that says whether running the same work again may succeed:
/// the database cancelled it for reasons of its own (a deadlock, a serialization failure), a lock
/// or a connection stayed busy past its wait, or the connection was lost. Work that failed so is
/// tried again where losing it costs more than a wait (a worker's recording of what was sent);
/// any other failure is the work's own (a constraint, a full disk), and trying again fails again.
package protocol StoreFailure: Error {
    /// True when trying the same work again may succeed.
    var isTransient: Bool { get }
}

/// Whether `error`, thrown by a store, may pass when the same work is tried again
/// (``StoreFailure/isTransient``); false for an error that is no store's.
package func isTransientStoreFailure(_ error: any Error) -> Bool {
    (error as? any StoreFailure)?.isTransient ?? false
}
