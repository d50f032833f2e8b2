public import PushSealCore

#if canImport(CNGHTTP2)
    internal import PushSealHTTPS
#endif

/// A request that got no HTTP answer: its kind, to act on and to count, and where and why, for
/// people (never a secret: the hosts and paths here carry none).
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure it was.
    public let kind: TransportFailure
    /// Where and why.
    public let detail: String

    /// A failure of `kind`, explained by `detail`.
    public init(_ kind: TransportFailure, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The detail.
    public var description: String { detail }
}

#if canImport(CNGHTTP2)
    extension TransportError {
        /// The failure of a connection or an HTTP/1.1 exchange, by its kind.
        init(_ failure: HTTPSFailure) {
            let kind: TransportFailure =
                switch failure.kind {
                case .timeout: .timeout
                case .unreachable: .network
                case .untrusted: .tls
                case .localDestination: .localDestination
                case .insecure, .tooManyRedirects, .malformed: .protocolViolation
                case .stopped: .client
                }
            self.init(kind, failure.detail)
        }
    }
#endif
