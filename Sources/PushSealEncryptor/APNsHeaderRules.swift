internal import PushSealCore

/// Apple's rules for the values of the APNs request headers, checked before any value reaches
/// the wire: a value with a line break would add a header of the attacker's choosing.
///
/// - `apns-topic`: a bundle id (letters, digits, `-` and `.`, no empty component), which also
///   covers Apple's suffixes (`.voip`, `.complication`, `.pushkit.fileprovider`,
///   `.push-type.liveactivity`, …); a VoIP push's topic must end in `.voip`.
/// - `apns-collapse-id`: 1 to 64 bytes, no control character.
/// - `apns-id`: a canonical UUID, `8-4-4-4-12` hex digits.
public enum APNsHeaderRules {
    /// The longest topic accepted (a bundle id is at most 155 characters; suffixes add some).
    public static let maximumTopicLength = 255

    /// Checks `topic` for a push of `pushType`.
    /// - Throws: `PushSealError.Code.invalidPayload` naming the header and what is wrong.
    public static func validateTopic(_ topic: String, pushType: PushType) throws {
        let bytes = Array(topic.utf8)
        guard !bytes.isEmpty else {
            throw PushSealError(.invalidPayload, "apns-topic is required (--topic or \"topic\")")
        }
        guard bytes.count <= maximumTopicLength,
            bytes.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }),
            !topic.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
        else {
            throw PushSealError(
                .invalidPayload,
                "apns-topic \(quoted(topic)) is not a bundle id (letters, digits, '-' and '.', no empty component)")
        }
        if pushType == .voip, !topic.hasSuffix(".voip") {
            throw PushSealError(.invalidPayload, "apns-topic of a VoIP push must be the bundle id followed by .voip")
        }
    }

    /// Checks an `apns-collapse-id`.
    public static func validateCollapseID(_ collapseID: String) throws {
        guard !collapseID.isEmpty, collapseID.utf8.count <= APNsHeaderText.maximumCollapseIDLength else {
            throw PushSealError(.invalidPayload, "apns-collapse-id must be 1 to 64 bytes, not \(collapseID.utf8.count)")
        }
        guard !APNsHeaderText.hasControlCharacter(collapseID) else {
            throw PushSealError(.invalidPayload, "apns-collapse-id \(quoted(collapseID)) holds a control character")
        }
    }

    /// Checks an `apns-id`: a canonical UUID.
    public static func validateAPNsID(_ apnsID: String) throws {
        let bytes = Array(apnsID.utf8)
        let hyphens: Set<Int> = [8, 13, 18, 23]
        let canonical =
            bytes.count == 36
            && bytes.indices.allSatisfy { index in
                hyphens.contains(index) ? bytes[index] == UInt8(ascii: "-") : isHexDigit(bytes[index])
            }
        guard canonical else {
            throw PushSealError(
                .invalidPayload, "apns-id \(quoted(apnsID)) is not a UUID (8-4-4-4-12 hexadecimal digits)")
        }
    }

    /// True for a value that can go into any HTTP header as it is: no control character.
    public static func isSafeHeaderValue(_ value: String) -> Bool {
        !APNsHeaderText.hasControlCharacter(value)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// A value for a message: quoted, control characters escaped, at most 80 characters.
    private static func quoted(_ value: String) -> String {
        JSONWriter.string(.string(String(value.prefix(80))))
    }
}
