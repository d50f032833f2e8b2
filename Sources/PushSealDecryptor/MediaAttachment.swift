public import PushSealCore

/// A media attachment ready to show: a checked, decrypted file in the app's container.
public struct MediaAttachment: Sendable, Hashable {
    /// The file: `<UUID>.<extension>` of the media type.
    public let file: String
    /// The media type, checked against the file's first bytes.
    public let type: MediaType
    /// The media's length in bytes.
    public let length: Int

    /// `{"file", "type", "length"}`, as the CLI prints it.
    public var json: JSONObject {
        JSONObject([
            ("file", .string(file)), ("type", .string(type.name)), ("length", .number(JSONNumber(length))),
        ])
    }
}
