package import PushSealURL

/// Why an HTTPS GET did not deliver its response: a kind to act on, and a detail for people.
package struct HTTPSFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, as the caller acts on it.
    package enum Kind: Sendable {
        /// The URL, or a redirect's target, is not https.
        case insecure
        /// More redirects than allowed.
        case tooManyRedirects
        /// The deadline passed, or the caller cancelled.
        case timeout
        /// No answer: the name did not resolve, no address connected, the TLS handshake failed,
        /// or the connection broke.
        case unreachable
        /// The URL or the server's response does not parse.
        case malformed
        /// The caller's response or body handler asked to stop.
        case stopped
        /// The server's certificate does not verify, or the certificates to trust cannot be
        /// loaded: no retry can fix it.
        case untrusted
        /// The host resolves only to local addresses (loopback, private, link-local, unique-local),
        /// and the caller did not allow them.
        case localDestination
    }

    /// What went wrong.
    package let kind: Kind
    /// Where and why, for people (never a secret: URLs here carry none, the key is elsewhere).
    package let detail: String

    /// A failure of `kind`, explained by `detail`.
    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// A URL that the media URL rule refuses.
    package init(_ refusal: HTTPSURL.Refusal) {
        self.init(refusal.kind == .insecure ? .insecure : .malformed, refusal.detail)
    }

    package var description: String { detail }
}
