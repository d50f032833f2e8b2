/// What the receipts of one delivery are checked against (gateway-v1.md, "Receipts"): the
/// delivery's id in receipt URLs, and the SHA-256 of each of its two capabilities, which is all
/// the gateway keeps of them.
package struct ReceiptCredentials: Sendable, Equatable {
    /// The delivery's id in `/v1/receipts/{delivery}`: 22 characters of base64url.
    package let deliveryID: String
    /// The hash of the display capability, sealed into the content: it reports any outcome.
    package let displayHash: [UInt8]
    /// The hash of the failure capability, in clear beside the envelope: it reports `degraded` alone.
    package let failureHash: [UInt8]

    /// A value of these members.
    package init(deliveryID: String, displayHash: [UInt8], failureHash: [UInt8]) {
        self.deliveryID = deliveryID
        self.displayHash = displayHash
        self.failureHash = failureHash
    }
}
