/// Why a request to APNs or a push service got no HTTP answer, as a closed set a program can act
/// on (and a metric can count); the words for people travel beside it.
public enum TransportFailure: String, Sendable, CaseIterable {
    /// The deadline passed: no connection, no SETTINGS, or no answer in time.
    case timeout
    /// The server's certificate does not verify, or the certificates to trust cannot be loaded.
    case tls
    /// The name did not resolve, no address connected, or the connection broke or was closed.
    case network
    /// The host resolves only to local addresses (loopback, private, link-local, unique-local),
    /// which this client does not reach.
    case localDestination = "local-destination"
    /// The host is not one of the push services the client is allowed to reach.
    case notAllowed = "not-allowed"
    /// The server broke the protocol or its bounds: no HTTP/2, an oversized answer, a stream
    /// ended without a response.
    case protocolViolation = "protocol"
    /// The client itself could not make the request: a library out of memory, no TLS library on
    /// this platform.
    case client
}
