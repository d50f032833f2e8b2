internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealPrimitives

/// `GET /v1/devices?state=…&since=…&limit=…&cursor=…` (gateway-v1.md, "Devices that left"): the
/// devices of a state, a page at a time, in a stable order, so that a backend learns which
/// devices left and cleans up its own records. Unregistered devices come by the time they were
/// marked, then by id; the others by id. The cursor is opaque to the client. `GET
/// /v1/users/{user}/devices` is the same listing of one user's devices.
struct DeviceListing: Sendable, Equatable {
    /// The most devices one page holds, and the default.
    static let maximumLimit = 500
    static let defaultLimit = 100

    /// The state asked for; nil for every device.
    let state: DeviceFilter?
    /// For `unregistered`: only devices marked at or after this time (milliseconds).
    let since: Int64?
    /// The page's size.
    let limit: Int
    /// Where the page starts: after this device.
    let after: DeviceCursor?
    /// Only the devices of this user, when given.
    let user: String?

    /// Reads and checks `query`, for the devices of `user` (or every user's).
    /// - Throws: ``APIError`` naming the query parameter at fault.
    init(query: [String: String], user: String? = nil) throws(APIError) {
        self.user = user
        let known = ["state", "since", "limit", "cursor"]
        try RequestReader.refuseUnknown(query: query, known)
        switch query["state"] {
        case nil: state = nil
        case "active": state = .active
        case "unregistered": state = .unregistered
        default: throw .invalidQuery("state", "must be active or unregistered")
        }
        if let text = query["since"] {
            guard state == .unregistered else { throw .invalidQuery("since", "is only for state=unregistered") }
            guard let value = Int64(text), value >= 0 else {
                throw .invalidQuery("since", "must be a time in milliseconds since the epoch")
            }
            since = value
        } else {
            since = nil
        }
        limit = try RequestReader.pageLimit(query, fallback: Self.defaultLimit, maximum: Self.maximumLimit)
        if let text = query["cursor"] {
            guard let cursor = DeviceCursor(text: text), (cursor.unregisteredAt != nil) == (state == .unregistered)
            else { throw .invalidQuery("cursor", "is not a cursor of this listing: pass next_cursor as it came") }
            after = cursor
        } else {
            after = nil
        }
    }

    /// What the store is asked for.
    var query: DeviceQuery {
        DeviceQuery(
            state: state, since: since, afterID: after?.id, afterUnregisteredAt: after?.unregisteredAt, user: user)
    }

    /// The answer for `devices`, a page of at most ``limit`` (one more was asked of the store to
    /// know whether another page follows).
    func json(_ devices: [Device]) -> JSONValue {
        let page = Array(devices.prefix(limit))
        var object = JSONObject([("devices", .array(page.map(DeviceRegistration.json)))])
        if devices.count > limit, let last = page.last {
            object["next_cursor"] = .string(DeviceCursor(after: last, state: state).text)
        }
        return .object(object)
    }
}

/// Where a page of devices ends: the last device's id, and for unregistered devices the time it
/// was marked. Written as base64url of `u.<time>.<id>` or `i.<id>`.
struct DeviceCursor: Sendable, Equatable {
    let unregisteredAt: Int64?
    let id: String

    /// The cursor after `device` in a listing of `state`.
    init(after device: Device, state: DeviceFilter?) {
        unregisteredAt = state == .unregistered ? device.unregisteredAt ?? 0 : nil
        id = device.id
    }

    /// The cursor `text` stands for; nil when it is not one.
    init?(text: String) {
        guard text.utf8.count <= 400, let bytes = Base64URL.decode(text),
            let decoded = String(validating: bytes, as: UTF8.self)
        else { return nil }
        let parts = decoded.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        switch parts.first {
        case "u" where parts.count == 3:
            guard let time = Int64(parts[1]), RequestReader.isIdentifier(parts[2]) else { return nil }
            unregisteredAt = time
            id = parts[2]
        case "i" where parts.count == 2:
            guard RequestReader.isIdentifier(parts[1]) else { return nil }
            unregisteredAt = nil
            id = parts[1]
        default: return nil
        }
    }

    /// The cursor as the client gets it.
    var text: String {
        Base64URL.encode(Array((unregisteredAt.map { "u.\($0).\(id)" } ?? "i.\(id)").utf8))
    }
}
