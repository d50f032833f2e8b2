#if canImport(Darwin) || PUSHSEAL_TYPECHECK_APPLE
    import Foundation
#endif

/// The data-protection class of everything the store writes in the shared container, on Apple
/// platforms: `completeUntilFirstUserAuthentication`. An extension runs while the phone is
/// locked; with this class its files are readable from the first unlock after a restart on, and
/// with `complete` (the default of an app whose entitlement asks for it) they would not be while
/// the phone is locked. Before that first unlock no file of the container can be read, whatever
/// its class: the store's reads then fail with `key-store-locked`.
///
/// Atomic replacement makes a new file for every write, so the class is set on each file before
/// it takes its name, and on the folders, whose class new files inherit.
enum StoreProtection {
    /// Gives `path` the store's class; nothing where the platform has no data protection. A
    /// failure leaves the container's default class, which for an App Group is the same unless the
    /// app's entitlement changed it, so it does not fail the write.
    static func apply(to path: String) {
        #if canImport(Darwin) || PUSHSEAL_TYPECHECK_APPLE
            try? FileManager.default.setAttributes(
                [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: path)
        #endif
    }
}
