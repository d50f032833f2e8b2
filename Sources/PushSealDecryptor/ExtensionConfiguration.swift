public import PushSealCore

/// What a Notification Service Extension built on `PushSealNotificationService` says about
/// itself: its app group, and how strict to be. Everything else (the store's folder in the
/// group's container, the session's rules) is the library's.
public struct ExtensionConfiguration: Sendable {
    /// The app group shared with the app (`group.com.example.shop`): its container holds the store.
    public var appGroup: String
    /// The store's folder inside the container.
    public var storeFolder = "pushseal"
    /// The folder for downloaded media inside the container; nil downloads no media.
    public var mediaFolder: String? = "pushseal-media"
    /// The policy, fixed in the extension's code so that no file in the container can switch it
    /// off: by default an unsealed push shows the neutral text.
    public var policy = StorePolicy(requireSealed: true)
    /// The payload contract the app routes with, if any.
    public var contract: PayloadContract?
    /// What a forwarded Web Push message's content becomes (webpush-v1.md, "Forwarded to an
    /// iPhone"): the standard mapping (`title` and `body` of a JSON object), unless the app maps
    /// its sender's content itself.
    public var webPushMapping: WebPushContent.Mapping = WebPushContent.standard
    /// Whether the extension reports what it showed to the gateway that sent the push, when the
    /// push carries a receipt ticket (envelope-v1.md, "Receipts"): on by default, since a push
    /// carries one only when its gateway asks for receipts.
    public var postsReceipts = true

    /// A configuration for `appGroup`, with the defaults above.
    public init(appGroup: String) {
        self.appGroup = appGroup
    }

    /// The decryptor of an extension whose App Group's container is at `container`: the store,
    /// its ledger and the media folder in it, the contract, the policy and the mapping. With no
    /// container (nil: the group is misnamed, or not in the extension's entitlement) every push
    /// degrades with `key-store-unavailable` under the policy, and nothing is counted, since the
    /// ledger is in the container.
    public func decryptor(container: String?) -> Decryptor {
        guard let container else {
            return Decryptor(
                keyStore: MissingContainer(appGroup: appGroup), policy: policy, webPushMapping: webPushMapping)
        }
        let store = FileKeyStore(directory: "\(container)/\(storeFolder)")
        return Decryptor(
            keyStore: store, ledger: store.ledger, contract: contract,
            media: mediaFolder.map { MediaFetcher(directory: "\(container)/\($0)") }, policy: policy,
            webPushMapping: webPushMapping)
    }

    /// Where an extension whose App Group's container is at `container` sends its receipts, and
    /// keeps those it could not send (in the store's folder; nowhere with no container); nil when
    /// ``postsReceipts`` is off.
    public func receiptOutbox(container: String?) -> ReceiptOutbox? {
        guard postsReceipts else { return nil }
        return ReceiptOutbox(store: container.map { FileKeyStore(directory: "\($0)/\(storeFolder)") })
    }
}
