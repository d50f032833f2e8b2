import PushSealCore

/// The key store of an extension whose App Group has no container: the group is misnamed, or the
/// extension's entitlement (`com.apple.security.application-groups`) does not list it. Every read
/// fails with `key-store-unavailable`, naming the group, so that the push degrades as any push
/// whose store cannot be read (the policy's neutral text under `require-sealed`, else the
/// placeholder as it arrived), with the reason ios.md's debugging list gives, rather than pass
/// through unchanged. It is the first mistake an integrator makes.
struct MissingContainer: KeyStore {
    /// The App Group that has no container.
    let appGroup: String

    private var failure: PushSealError {
        PushSealError(
            .keyStoreUnavailable,
            "the App Group \"\(appGroup)\" has no container for this extension: check its name, and that the "
                + "extension's com.apple.security.application-groups entitlement lists it")
    }

    func loadKeyRing() throws -> KeyRing { throw failure }

    func loadPolicy() throws -> StorePolicy { throw failure }

    func loadWebPushReceivers() throws -> [WebPushReceiver] { throw failure }
}
