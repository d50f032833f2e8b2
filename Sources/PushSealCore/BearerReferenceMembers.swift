internal import PushSealPrimitives

/// The members that what a device presents a capability to shares (a fetch reference,
/// envelope-v1.md "Fetched content"; a receipt ticket, "Receipts"): `url`, where the capability
/// goes, an https URL under the media URL rule; and `capability`, random bytes of a fixed length
/// in base64url. Each check throws what `malformed` makes of the member's name and the rule it
/// breaks, so that each format names its own member.
enum BearerReferenceMembers {
    /// What a format makes of a member's name and what is wrong with it.
    typealias Malformed = (_ member: String, _ detail: String) -> PushSealError

    /// The `url` member of `json`.
    static func url(_ json: JSONObject, malformed: Malformed) throws(PushSealError) -> String {
        guard let url = json["url"]?.stringValue else { throw malformed("url", "must be a string") }
        try checkURL(url, malformed: malformed)
        return url
    }

    /// Checks `url` against the media URL rule (media-v1.md).
    static func checkURL(_ url: String, malformed: Malformed) throws(PushSealError) {
        do {
            try MediaDescriptor.checkURL(url)
        } catch {
            throw malformed("url", "must be an https URL under the media URL rule (media-v1.md): \(error.detail)")
        }
    }

    /// The `capability` member of `json`: exactly `byteCount` bytes of canonical base64url.
    static func capability(_ json: JSONObject, byteCount: Int, malformed: Malformed) throws(PushSealError)
        -> SecretBytes
    {
        guard let text = json["capability"]?.stringValue, let capability = Base64URL.decodeSecret(text),
            capability.count == byteCount
        else { throw malformed("capability", "must be \(byteCount) bytes of base64url") }
        return capability
    }
}
