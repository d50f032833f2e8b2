internal import PushSealCore

/// An HTTP response: a status, a few headers, and a body.
struct HTTPResponse: Sendable {
    /// The status code.
    let status: Int
    /// The headers besides `Content-Length`, which the server sets.
    let headers: [(name: String, value: String)]
    /// The body.
    let body: [UInt8]

    /// A JSON response: `value` as compact JSON, `Content-Type: application/json`.
    static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
            body: JSONWriter.bytes(value) + [0x0A])
    }

    /// A plain-text response (the metrics).
    static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8")
        -> HTTPResponse
    {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }
}
