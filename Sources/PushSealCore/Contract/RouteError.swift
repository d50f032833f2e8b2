/// Why a payload does not satisfy the payload contract: a stable code, and the JSON path and
/// detail for people. The device side turns any of these into "no route"; the server side
/// refuses the payload before sealing it.
public struct RouteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable code, the `route-error` of the CLI's output.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code as written in output, e.g. `unknown-type`.
        public let rawValue: String

        /// A code with this text.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code's text.
        public var description: String { rawValue }

        /// `type` is missing, not a string, or not a route of the contract.
        public static let unknownType = Code(rawValue: "unknown-type")
        /// `id` is missing, or not of the route's kind, or present on a route that takes none.
        public static let badID = Code(rawValue: "bad-id")
        /// `schema_version` is missing or not one of the contract's.
        public static let unsupportedSchema = Code(rawValue: "unsupported-schema")
        /// `event_id` is missing, empty, or not a string of at most 128 bytes.
        public static let missingEventID = Code(rawValue: "missing-event-id")
        /// A member looks like a link (a link-like name, or a string starting with a URL scheme)
        /// and the contract does not allow it by name. Server side only: the device never routes
        /// on such a member, so it does not refuse the route for it.
        public static let linkNotAllowed = Code(rawValue: "link-not-allowed")
    }

    /// The code.
    public let code: Code
    /// The JSON path of the member at fault, e.g. `$.id`.
    public let path: String
    /// What is wrong, for people.
    public let detail: String

    /// An error at `path`.
    public init(_ code: Code, _ path: String, _ detail: String) {
        self.code = code
        self.path = path
        self.detail = detail
    }

    /// `$.path detail (code)`.
    public var description: String { "\(path) \(detail) (\(code))" }
}
