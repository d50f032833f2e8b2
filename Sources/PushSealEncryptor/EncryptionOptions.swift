package import PushSealCore

/// How an ``Encryptor`` shapes the outer payload.
public struct EncryptionOptions: Sendable, Hashable {
    /// The placeholder alert (alert pushes only).
    public var placeholder: Placeholder = .standard
    /// Members copied into the outer payload in clear: `aps` members among
    /// ``clearableApsMembers`` go into the outer `aps`, any other name is a top-level member.
    public var clearMembers: [String] = []
    /// Members written into the outer payload in clear that the sealed content does not hold,
    /// after those of ``clearMembers``: a gateway's failure receipt (`pushseal_receipt`,
    /// envelope-v1.md "Receipts"). Counted against the size limit like the rest of the outer payload.
    package var outerMembers = JSONObject()
    /// Alert, background or VoIP.
    public var pushType: PushType = .alert
    /// The padding block in bytes; the padded plaintext is a multiple of it, capped by the limit.
    public var padBlock: Int = Padding.defaultBlock
    /// What to do when the payload cannot fit.
    public var overflow: OverflowPolicy = .fail

    /// The `aps` members that `--clear` may copy into the outer `aps`.
    public static let clearableApsMembers: Set<String> = [
        "thread-id", "category", "sound", "badge", "interruption-level", "relevance-score", "target-content-id",
    ]

    /// The defaults of cli-v1.md.
    public init() {}

    /// Checks the options themselves, before any payload is seen.
    /// - Throws: `PushSealError.Code.invalidPayload` naming the bad option.
    public func validate() throws {
        guard padBlock >= 1, padBlock <= 4096 else {
            throw PushSealError(.invalidPayload, "the padding block must be 1 to 4096 bytes, not \(padBlock)")
        }
        for name in clearMembers where ["aps", "enc", "alert"].contains(where: { $0.isExactly(name) }) {
            throw PushSealError(.invalidPayload, "\"\(name)\" cannot be left in clear")
        }
        for member in outerMembers where ["aps", "enc"].contains(where: { $0.isExactly(member.name) }) {
            throw PushSealError(.invalidPayload, "\"\(member.name)\" cannot be added to the outer payload")
        }
    }
}
