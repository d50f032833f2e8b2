package import PushSealGatewayModel

/// The relay's Web Push endpoints: each kept by its id's hash (the id itself is the endpoint's
/// secret), for one device, until removed.
package protocol RelayInboxStore: Sendable {
    /// Stores a new Web Push endpoint of the relay.
    func addInbox(_ inbox: WebPushInbox) throws
    /// The endpoint whose id hashes to `idHash`, and its device when it still exists.
    func inbox(idHash: String) throws -> (WebPushInbox, Device?)?
    /// Removes `app`'s endpoint (it answers 410 from then on); false when `app` has none, or it
    /// was removed already.
    func removeInbox(idHash: String, in app: AppID, at time: Int64) throws -> Bool
}

extension RelayInboxStore where Self: SQLExecutor {
    package func addInbox(_ inbox: WebPushInbox) throws {
        let (statement, values) = inbox.insert(placeholder: dialect.placeholder)
        try write(statement, values)
    }

    package func inbox(idHash: String) throws -> (WebPushInbox, Device?)? {
        try read("\(WebPushInbox.selectWithDevice) WHERE i.id_hash = \(placeholder(1))", [.text(idHash)]).first
            .flatMap(WebPushInbox.read(row:))
    }

    package func removeInbox(idHash: String, in app: AppID, at time: Int64) throws -> Bool {
        !(try write(
            "UPDATE webpush_inboxes SET removed_at = \(placeholder(1)) WHERE id_hash = \(placeholder(2)) "
                + "AND app = \(placeholder(3)) AND removed_at IS NULL RETURNING id_hash",
            [.integer(time), .text(idHash), .text(app.name)])).isEmpty
    }
}
