/// A delivery to be stored with its push: everything but the id, attempts and status.
package struct NewDelivery: Sendable {
    /// The device.
    package let device: Device
    /// The request headers (APNs', or RFC 8030's).
    package let headers: [(name: String, value: String)]
    /// The sealed outer payload, or the Web Push message.
    package let body: [UInt8]
    /// The push's expiration, if any.
    package let expiration: Int64?
    /// True when the alert body was shortened to fit (the push's `truncate` option).
    package var bodyTruncated: Bool
    /// What its receipts are checked against; nil when it carries none (the app has no
    /// `receipts`, or the push said `receipt: false`).
    package var receipt: ReceiptCredentials?

    /// A value of these members.
    package init(
        device: Device, headers: [(name: String, value: String)], body: [UInt8], expiration: Int64?,
        bodyTruncated: Bool = false, receipt: ReceiptCredentials? = nil
    ) {
        self.device = device
        self.headers = headers
        self.body = body
        self.expiration = expiration
        self.bodyTruncated = bodyTruncated
        self.receipt = receipt
    }

    /// The kinds of `deliveries`: whose workers a push of them wakes.
    package static func kinds(of deliveries: [NewDelivery]) -> Set<DeliveryKind> {
        Set(deliveries.map(\.device.channel.kind))
    }
}
