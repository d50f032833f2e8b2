#if canImport(UserNotifications)
    public import UserNotifications
    import PushSealCore
    import Foundation

    /// A Notification Service Extension that opens PushSeal envelopes: subclass it and say which
    /// app group holds the store.
    ///
    /// ```swift
    /// final class NotificationService: PushSealNotificationService {
    ///     override var configuration: ExtensionConfiguration { ExtensionConfiguration(appGroup: "group.com.example.shop") }
    /// }
    /// ```
    ///
    /// The rules are inside: the content handler is called exactly once (``ExtensionSession``),
    /// after the receipt of what is shown was posted (``ExtensionConfiguration/postsReceipts``),
    /// with the decrypted content and its media when they are ready in time, with the decrypted
    /// text alone when the time runs out during the download, and otherwise with the notification
    /// as it arrived (or the policy's neutral text). An App Group with no container (misnamed, or
    /// not in the extension's entitlement) degrades every push with `key-store-unavailable`
    /// (``ExtensionConfiguration/decryptor(container:)``); a payload that is not JSON (never a
    /// remote notification's) is delivered as it arrived.
    open class PushSealNotificationService: UNNotificationServiceExtension {
        private var session: ExtensionSession?

        /// The extension's app group and options; a subclass overrides it.
        open var configuration: ExtensionConfiguration { ExtensionConfiguration(appGroup: "") }

        /// Called with what is about to be shown, once per push, before the content handler: a
        /// subclass logs `result.status` and `result.reason` while it integrates (a misnamed App
        /// Group is `key-store-unavailable`). Does nothing by default.
        open func willDeliver(_ result: DecryptionResult) {}

        /// Opens the envelope of `request` and hands the content to `contentHandler`, exactly once.
        open override func didReceive(
            _ request: UNNotificationRequest,
            withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
        ) {
            let configuration = configuration
            guard let payload = JSONObject(userInfo: request.content.userInfo) else {
                contentHandler(request.content)
                return
            }
            let container = FileManager.default.containerURL(
                forSecurityApplicationGroupIdentifier: configuration.appGroup)
            let decryptor = configuration.decryptor(container: container?.path)
            // Apple's handler is not Sendable (nor, in some SDKs, its content); the session calls
            // the handler once, from one thread.
            let deliver = Unchecked(contentHandler)
            let original = Unchecked(request.content)
            let service = Unchecked(self)
            let receipts = configuration.receiptOutbox(container: container?.path)
            let session = ExtensionSession(payload: payload, decryptor: decryptor, receipts: receipts) { result in
                service.value.willDeliver(result)
                guard result.status != .plain else { return deliver.value(original.value) }
                let content = UNMutableNotificationContent(result.notification)
                if let file = result.attachment?.file,
                    let attachment = try? UNNotificationAttachment(
                        identifier: "media", url: URL(fileURLWithPath: file), options: nil)
                {
                    // iOS moves the file into its own store.
                    content.attachments = [attachment]
                }
                deliver.value(content)
            }
            self.session = session
            session.didReceive()
        }

        /// iOS's time is running out: delivers the best content ready now (``ExtensionSession``).
        open override func serviceExtensionTimeWillExpire() {
            session?.timeWillExpire()
        }
    }

    /// A value handed to the session's closure, which calls it once, from one thread.
    private struct Unchecked<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
#endif
