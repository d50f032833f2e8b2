/// An app the gateway serves: the name the configuration gives it, which every row of its
/// devices, pushes, tokens, relay endpoints and webhook events carries. A gateway configured for
/// one app serves ``default``.
package struct AppID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The name: 1 to 32 characters of `a–z 0–9 -`, a letter or digit first.
    package let name: String

    /// The app named `name`; nil for a name outside 1 to 32 characters of `a–z 0–9 -` with a
    /// letter or digit first (a name is a metric label and a path segment, so it stays plain).
    package init?(_ name: String) {
        let bytes = Array(name.utf8)
        guard (1...32).contains(bytes.count), bytes[0] != UInt8(ascii: "-"),
            bytes.allSatisfy({ Self.isNameByte($0) })
        else { return nil }
        self.name = name
    }

    /// The app of a gateway configured for one, and of every row stored before apps (schema 10).
    package static let `default` = AppID(uncheckedName: "default")

    private init(uncheckedName: String) { name = uncheckedName }

    /// The name.
    package var description: String { name }

    /// By name.
    package static func < (lhs: AppID, rhs: AppID) -> Bool { lhs.name < rhs.name }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-")
    }
}
