public import PushSealCore

extension MediaDescriptor {
    /// The descriptor a payload's `media` member holds, checked as media-v1.md says (its URL rule
    /// included), wherever the member came from: the payload itself, `--media`, a job line's
    /// `"media"`. Every sealing path checks it, with or without a contract.
    /// - Throws: `PushSealError.Code.invalidPayload` whose message names the path and the code,
    ///   as contract-v1.md's messages do: `$.media must be a media-v1 descriptor object, not a
    ///   number (invalid-payload)`.
    public static func inPayload(_ value: JSONValue) throws -> MediaDescriptor {
        let path = JSONPath.root.member("media")
        guard let object = value.objectValue else {
            throw PushSealError(
                .invalidPayload, "\(path) must be a media-v1 descriptor object, not \(value.typeName) (invalid-payload)"
            )
        }
        do {
            return try MediaDescriptor(json: object)
        } catch {
            throw PushSealError(.invalidPayload, "\(path) is not a media-v1 descriptor: \(error) (invalid-payload)")
        }
    }
}
