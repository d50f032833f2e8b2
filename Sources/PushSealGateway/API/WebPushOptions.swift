internal import PushSealCore
internal import PushSealURL

/// The `web` member of `POST /v1/pushes` (gateway-v1.md, "Web Push", its content): what a browser
/// shows beyond the APNs payload. Every member is optional; an iPhone ignores them all.
struct WebPushOptions: Sendable {
    /// The URL the notification opens when clicked (Declarative Web Push's `navigate`); without
    /// it, `webpush.navigate`.
    var navigate: String?
    /// The notification's icon.
    var icon: String?
    /// The language of its title and body, a BCP 47 tag (`en`, `pt-BR`).
    var lang: String?
    /// The direction of its text: `auto`, `ltr` or `rtl`.
    var dir: String?

    /// The longest URL taken, in bytes.
    static let maximumURLByteCount = 2_048

    /// No member: the configuration's `navigate`, and nothing else.
    init() {}

    /// Reads and checks `value`, the `web` member at `path`.
    /// - Throws: ``APIError`` naming the member.
    init(_ value: JSONValue?, at path: JSONPath) throws(APIError) {
        guard let value else { return }
        guard let object = value.objectValue else { throw .invalid(path, "must be an object") }
        try RequestReader.refuseUnknown(object, ["navigate", "icon", "lang", "dir"], at: path)
        navigate = try Self.url(object, "navigate", at: path)
        icon = try Self.url(object, "icon", at: path)
        lang = try RequestReader.optionalText(object, "lang", at: path, maximum: 35)
        if let lang, !Self.isLanguageTag(lang) {
            throw .invalid(path.member("lang"), "must be a BCP 47 language tag, such as en or pt-BR")
        }
        dir = try RequestReader.optionalText(object, "dir", at: path, maximum: 4)
        if let dir, !["auto", "ltr", "rtl"].contains(dir) {
            throw .invalid(path.member("dir"), "must be \"auto\", \"ltr\" or \"rtl\"")
        }
    }

    /// The https URL `name` of `object`, when present.
    private static func url(_ object: JSONObject, _ name: String, at path: JSONPath) throws(APIError) -> String? {
        guard let text = try RequestReader.optionalText(object, name, at: path, maximum: maximumURLByteCount)
        else { return nil }
        guard Self.isWebURL(text) else {
            throw .invalid(path.member(name), "must be an https URL of at most \(maximumURLByteCount) bytes")
        }
        return text
    }

    /// Whether `text` is an https URL that the strict parser takes, at most
    /// ``maximumURLByteCount`` bytes: what a notification may open or show.
    static func isWebURL(_ text: String) -> Bool {
        text.utf8.count <= maximumURLByteCount && (try? HTTPSURL(text)) != nil
    }

    /// Letters, digits and `-`, in subtags of 1 to 8 characters, the first of letters alone: the
    /// shape of a BCP 47 tag, without its registry.
    private static func isLanguageTag(_ text: String) -> Bool {
        let subtags = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = subtags.first, (2...8).contains(first.count), first.allSatisfy(\.isASCIILetterLike)
        else { return false }
        return subtags.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy(\.isASCIIAlphanumeric) }
    }
}

extension Character {
    /// An ASCII letter.
    fileprivate var isASCIILetterLike: Bool { isASCII && isLetter }
    /// An ASCII letter or digit.
    fileprivate var isASCIIAlphanumeric: Bool { isASCII && (isLetter || isNumber) }
}
