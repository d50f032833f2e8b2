/// An app as the database lists it (`apps`): every app that may have rows, whether or not this
/// instance serves it, with when an instance last served it and the retention it had then. The
/// retention sweep reads the list, so that an app removed from every instance's configuration
/// keeps its rows for that retention, then loses them, its queued deliveries too.
package struct AppRecord: Sendable, Equatable {
    /// The app.
    package let id: AppID
    /// How long its ended records are kept, in hours; nil for the sweeping gateway's
    /// `retention_hours` (the rows of a gateway from before apps, until an instance serves them).
    package let retentionHours: Int?
    /// When an instance serving it last said it was alive (its heartbeat), milliseconds since the
    /// epoch; for rows from before apps, when the schema took apps.
    package let servedAt: Int64
    /// When an instance serving its Web Push (with `webpush` for it) last said it was alive; nil
    /// when none has since the schema took apps (and so no Web Push delivery of it is claimed).
    package let webPushServedAt: Int64?

    /// A value of these members.
    package init(id: AppID, retentionHours: Int?, servedAt: Int64, webPushServedAt: Int64? = nil) {
        self.id = id
        self.retentionHours = retentionHours
        self.servedAt = servedAt
        self.webPushServedAt = webPushServedAt
    }
}
