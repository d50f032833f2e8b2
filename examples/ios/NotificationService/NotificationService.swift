// The whole Notification Service Extension of an app that receives PushSeal pushes: the library's
// PushSealNotificationService opens each envelope, calls the content handler exactly once, and
// falls back to the notification as it arrived when anything fails or the time runs out. The
// app group is its only input. `make test` type-checks this file (scripts/typecheck-apple.sh).
import PushSealDecryptor

final class NotificationService: PushSealNotificationService {
    override var configuration: ExtensionConfiguration {
        ExtensionConfiguration(appGroup: "group.com.example.shop")
    }
}
