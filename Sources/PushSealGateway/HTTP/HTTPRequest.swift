/// One HTTP request as the gateway's API sees it: the whole body has been read (up to the
/// server's cap) before the handler runs.
struct HTTPRequest: Sendable {
    /// `GET`, `PUT`, `POST`, `DELETE`, …
    let method: String
    /// The path, without the query (`/v1/devices/abc`).
    let path: String
    /// The request headers, names lower-cased.
    let headers: [String: String]
    /// The query's arguments, decoded (`?state=unregistered` gives `["state": "unregistered"]`).
    var query: [String: String] = [:]
    /// The body; empty when there was none.
    let body: [UInt8]
    /// True when the body was longer than the server's cap (then ``body`` is empty).
    let bodyTooLarge: Bool
    /// The address the connection comes from (a proxy, when there is one); nil when unknown.
    var peer: IPAddress? = nil

    /// The value of the header `name` (lower case).
    func header(_ name: String) -> String? { headers[name] }

    /// The credential of an `Authorization: Bearer <credential>` header (the scheme's name in any
    /// case, RFC 9110 §11.1); nil without one.
    var bearer: String? {
        guard let authorization = header("authorization"), authorization.utf8.count > 7,
            authorization.prefix(7).lowercased() == "bearer "
        else { return nil }
        return String(authorization.dropFirst(7))
    }
}
