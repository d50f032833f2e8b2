package import PushSealCore

/// The relay's checks of a sender's request as functions of its headers and body, for the receive
/// path's fuzz target (`Fuzz/FuzzRelay`): the status `POST /v1/webpush/{id}` would answer before
/// storing anything (201: the checks passed).
package enum RelayChecks {
    /// The origin the fuzzed requests are checked against.
    static let audience = "https://relay.example"
    /// A P-256 public key (the uncompressed point of the generator), pinned for the VAPID check.
    static let pinned =
        "BGsX0fLhLEJH-Lzm5WOkQPJ3A32BLeszoPShOUXYmMKWT-NC4v4af5uO5-tKfA-eFivOM1drMV7Oy7ZAaDe_UfU"

    /// The relay's default placeholder, which a message forwarded in the push leaves room for.
    package static let placeholder: (title: String?, body: String?) = ("New notification", "Open the app to view it.")

    /// The status of RFC 8030's checks for a request with `headers` (names lower-cased) and
    /// `body`, with RFC 8030's 4,096-byte limit; for 201, what the relay forwards (the message, or
    /// a legacy message's frame) and its coding.
    package static func messageStatus(headers: [String: String], body: [UInt8]) -> (
        status: Int, forwarded: (bytes: [UInt8], coding: WebPushCoding)?
    ) {
        let request = HTTPRequest(
            method: "POST", path: "/v1/webpush/x", headers: headers, body: body, bodyTooLarge: false)
        do {
            let message = try InboundMessage(request, maximumBody: WebPushMessage.maximumByteCount)
            return (201, (message.forwarded, message.coding))
        } catch {
            return (error.status, nil)
        }
    }

    /// The status of the VAPID check of `authorization` (with `cryptoKey`, for the draft's form)
    /// for an endpoint pinned to ``pinned``: without the key's private half no input can pass, so
    /// anything but 401 or 403 is a bypass.
    package static func vapidStatus(authorization: String?, cryptoKey: String?) -> Int {
        do {
            try VAPIDCheck.check(
                authorization, cryptoKey: cryptoKey, pinned: pinned, audience: audience, now: 1_800_000_000)
            return 201
        } catch {
            return error.status
        }
    }
}
