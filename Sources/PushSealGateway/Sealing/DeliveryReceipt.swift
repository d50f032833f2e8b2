internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealPrimitives

/// The receipts one delivery carries (gateway-v1.md, "Receipts"): an id of its own in receipt
/// URLs (``newID(at:)``), the ticket with the display capability that is sealed into its content, the
/// ticket with the failure capability that an APNs payload carries in clear beside the
/// envelope, and what the store keeps of them (the capabilities' hashes).
struct DeliveryReceipt: Sendable {
    /// Sealed into the content: it reports any outcome.
    let display: ReceiptTicket
    /// In clear beside an APNs envelope: it reports `degraded` alone.
    let failure: ReceiptTicket
    /// The delivery's id and the capabilities' hashes, for the store.
    let credentials: ReceiptCredentials

    /// A delivery's receipts under `settings`, with a fresh id and fresh capabilities.
    /// - Throws: `malformed-content` when the configured URL does not make a ticket's URL (it was
    ///   checked when the configuration was read).
    static func make(_ settings: ReceiptSettings) throws -> DeliveryReceipt {
        let id = Base64URL.encode(newID(at: GatewayClock.milliseconds()))
        let url = settings.url(ofDelivery: id)
        let display = try ReceiptTicket.make(url: url)
        let failure = try ReceiptTicket.make(url: url)
        return DeliveryReceipt(
            display: display.ticket, failure: failure.ticket,
            credentials: ReceiptCredentials(
                deliveryID: id, displayHash: display.capabilityHash, failureHash: failure.capabilityHash))
    }

    /// A delivery id made at `milliseconds` (Unix time): a version 7 UUID's 16 bytes, the time
    /// first (`TimeOrderedUUID`), as push ids are. Ids made one after the other land side by
    /// side in the store's unique index of them, where random ones would each dirty a page of
    /// their own: a commit of a few hundred deliveries wrote a few hundred index pages (bench,
    /// "receipts"). The id is no secret (the capabilities are), and the time it tells is when
    /// the push was accepted.
    static func newID(at milliseconds: Int64) -> [UInt8] { TimeOrderedUUID.bytes(milliseconds: milliseconds) }
}
