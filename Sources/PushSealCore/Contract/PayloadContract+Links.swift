internal import PushSealURL

extension PayloadContract {
    /// The first custom member that is, or holds, a link the route does not allow, as an error.
    ///
    /// A custom member (any top-level member but `aps`, the contract's own members and the typed
    /// `media`) violates the rule when its name, or the name of a member nested in it at any
    /// depth, looks like a link (it is, or ends in, `url`, `uri`, `link` or `href`, or is itself a link by
    /// ``isLink(_:)``), or when a string inside it is a link; unless the contract declares the
    /// top-level member, for every route or for this one, in `links` (it may hold links) or in
    /// `text` (plain text, never searched): a declaration exempts that member and everything in
    /// it, and only a top-level member (`links: ["help_url"]` does not exempt `$.data.help_url`).
    public func linkViolation(in payload: JSONObject, route: Route) -> RouteError? {
        let definition = routes[ExactText(route.type)]
        let exempt = allowedLinks.union(plainText).union(definition?.allowedLinks ?? []).union(
            definition?.plainText ?? [])
        let skipped = ["aps"] + Self.contractMembers + Self.typedMembers
        for (name, value) in payload where !skipped.contains(where: { $0.isExactly(name) }) {
            guard !exempt.contains(ExactText(name)) else { continue }
            let path = JSONPath.root.member(name)
            if Self.isLinkName(name) {
                return Self.violation(at: path, "is named like a link", member: name)
            }
            if let found = Self.firstLink(in: value, at: path) {
                return Self.violation(at: found, "is a link", member: name)
            }
        }
        return nil
    }

    /// The error for `member`, naming the path and how to declare the member.
    private static func violation(at path: JSONPath, _ problem: String, member: String) -> RouteError {
        RouteError(
            .linkNotAllowed, path.description,
            "\(problem): declare \"\(member)\" in the contract's \"links\" if it is a link, or in \"text\" if it is "
                + "plain text")
    }

    /// A member name the link rule refuses: named like a link, or a link itself (`https://x`).
    static func isLinkName(_ name: String) -> Bool { looksLikeLinkName(name) || isLink(name) }

    /// True for a member name that is, or ends in, `url`, `uri`, `link` or `href`, in any ASCII
    /// case (`media-url`, `deepLink`, `receipt_HREF`). Only A–Z fold: names are compared by their
    /// bytes everywhere else (envelope-v1), so `lin\u{212A}` (KELVIN SIGN) is not `link`.
    static func looksLikeLinkName(_ name: String) -> Bool {
        let lower = name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        return ["url", "uri", "link", "href"].contains { lower.reversed().starts(with: $0.utf8.reversed()) }
    }

    /// The path of the first link inside `value`: a string that ``isLink(_:)``, or a member named
    /// like one (``isLinkName(_:)``).
    static func firstLink(in value: JSONValue, at path: JSONPath) -> JSONPath? {
        switch value {
        case .string(let text): return isLink(text) ? path : nil
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = firstLink(in: element, at: path.element(index)) { return found }
            }
            return nil
        case .object(let object):
            for (name, member) in object {
                if isLinkName(name) { return path.member(name) }
                if let found = firstLink(in: member, at: path.member(name)) { return found }
            }
            return nil
        default: return nil
        }
    }

    /// True when a URL parser would read `text` as a link: after the WHATWG URL Standard's
    /// clean-up (leading and trailing C0 controls and spaces stripped, every tab and newline
    /// removed, `\` read as `/`), it starts with a scheme (`[A-Za-z][A-Za-z0-9+.-]*:`, any length,
    /// `//` or not) or with `//` (a scheme-relative URL).
    ///
    /// A parse, not a list of schemes: `" https://x"`, `"java\tscript:"`, `"https:evil"`,
    /// `"\\\\evil"`, `"telprompt:"` and a scheme of 100 letters are all links. Plain text with a
    /// colon after a word (`"Re: lunch"`) is one too, which is what the contract's `text`
    /// declaration is for.
    public static func isLink(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        while let last = bytes.last, last <= 0x20 { bytes.removeLast() }
        let start = bytes.firstIndex { $0 > 0x20 } ?? bytes.endIndex
        let cleaned = bytes[start...].filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }.map { $0 == 0x5C ? 0x2F : $0 }
        return cleaned.starts(with: [0x2F, 0x2F]) || URLScheme.begins(cleaned)
    }
}
