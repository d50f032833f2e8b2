#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a mutex: every access goes through ``withLock(_:)``.
///
/// It wraps a heap-allocated `pthread_mutex_t` (which must never move), for two reasons:
/// `Synchronization.Mutex` needs iOS 18, and the extension targets iOS 17; and on Linux that
/// Mutex is a priority-inheriting futex, which enters the kernel whenever two threads meet on
/// it. The gateway's connection guard, taken four times by every request on every connection
/// thread, spent 14 % of the processors waiting on it under load (perf, bench "receipts"); glibc's
/// mutex, which spins a little before it sleeps, does not.
package final class Protected<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A mutex guarding `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
