/// What a bearer token may do.
package enum AccessScope: String, Sendable, CaseIterable, Comparable {
    /// Register, update and delete devices.
    case devices
    /// Send pushes.
    case pushes
    /// Read devices and pushes' status.
    case read
    /// Everything.
    case admin

    package static func < (lhs: AccessScope, rhs: AccessScope) -> Bool { lhs.rawValue < rhs.rawValue }
}
