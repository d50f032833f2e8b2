/// One finished request of an ``HTTP2Connection``.
struct HTTP2Response {
    /// The HTTP status, or nil when the request failed in transport.
    let status: Int?
    /// Response headers, names in lower case.
    let headers: [String: String]
    /// The response body.
    let body: [UInt8]
    /// Curl's description of a transport failure.
    let transportError: String?
    /// True when the transport failure cannot heal by retrying (a certificate that does not
    /// verify, a server that does not speak HTTP/2, a response over the size cap).
    var transportFailureIsPermanent = false
}
