/// One finished request of an ``HTTP2Client``.
struct HTTP2Response {
    /// The HTTP status, or nil when the request failed in transport.
    let status: Int?
    /// Response headers, names in lower case.
    let headers: [String: String]
    /// The response body.
    let body: [UInt8]
    /// What went wrong in transport, when nothing answered.
    let transportError: TransportError?
    /// True when the transport failure cannot heal by retrying (a certificate that does not
    /// verify, a server that does not speak HTTP/2, a response over the size cap).
    var transportFailureIsPermanent = false
    /// True when the server said it never processed the request: its stream was refused
    /// (`REFUSED_STREAM`), or was newer than the last one a GOAWAY accepted. It may be sent again
    /// at once, on another connection, without counting as an attempt.
    var unprocessed = false
    /// True when no connection could be made because the server does not speak HTTP/2.
    var serverLacksHTTP2 = false

    /// A response that arrived.
    init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
        self.transportError = nil
    }

    /// A request that got no response: `error` says why.
    init(transportError error: TransportError, permanent: Bool = false, unprocessed: Bool = false) {
        self.status = nil
        self.headers = [:]
        self.body = []
        self.transportError = error
        self.transportFailureIsPermanent = permanent
        self.unprocessed = unprocessed
    }
}
