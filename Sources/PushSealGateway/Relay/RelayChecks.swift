internal import PushSealCore

/// The relay's checks of a sender's request as functions of its headers and body, for the receive
/// path's fuzz target (`Fuzz/FuzzRelay`): the status `POST /v1/webpush/{id}` would answer before
/// storing anything (201: the checks passed).
package enum RelayChecks {
    /// The origin the fuzzed requests are checked against.
    static let audience = "https://relay.example"
    /// A P-256 public key (the uncompressed point of the generator), pinned for the VAPID check.
    static let pinned =
        "BGsX0fLhLEJH-Lzm5WOkQPJ3A32BLeszoPShOUXYmMKWT-NC4v4af5uO5-tKfA-eFivOM1drMV7Oy7ZAaDe_UfU"

    /// The relay's default placeholder, which the size limit of ``messageStatus(headers:body:)``
    /// leaves room for.
    package static let placeholder: (title: String?, body: String?) = ("New notification", "Open the app to view it.")

    /// The status of RFC 8030's checks for a request with `headers` (names lower-cased) and
    /// `body`, with the size limit of a message forwarded in the push with ``placeholder``.
    package static func messageStatus(headers: [String: String], body: [UInt8]) -> Int {
        let request = HTTPRequest(
            method: "POST", path: "/v1/webpush/x", headers: headers, body: body, bodyTooLarge: false)
        do {
            _ = try InboundMessage(
                request, maximumBody: ForwardedWebPush.maximumMessageByteCount(placeholder: placeholder))
            return 201
        } catch {
            return error.status
        }
    }

    /// The status of the VAPID check of `authorization` for an endpoint pinned to ``pinned``:
    /// without the key's private half no input can pass, so anything but 401 or 403 is a bypass.
    package static func vapidStatus(authorization: String?) -> Int {
        do {
            try VAPIDCheck.check(authorization, pinned: pinned, audience: audience, now: 1_800_000_000)
            return 201
        } catch {
            return error.status
        }
    }
}
