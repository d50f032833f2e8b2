public import PushSealCore

#if os(Linux)
    internal import PushSealHTTPS
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fetches the content a reference names (envelope-v1.md, "Fetched content"): one GET of the
/// reference's URL with its capability as a bearer token, under the media transport's rules
/// (HTTPS only, TLS verified, no local destination unless allowed), no redirect followed (the
/// capability goes to that URL alone), the length checked against the reference from
/// `Content-Length` and while reading, then the SHA-256. At most the reference's size is held in
/// memory: 64 KiB.
///
/// The transport is `HTTPSGet` on Linux and `URLSession` on Apple platforms, as for media.
public struct ContentFetcher: Sendable {
    /// Runs one GET of a reference's URL into `download` until `deadline` or `cancelled`: the
    /// transport's failure, nil when the answer was read or `download` stopped it.
    package typealias Transport =
        @Sendable (
            _ reference: FetchReference, _ download: FetchDownload, _ deadline: ContinuousClock.Instant,
            _ cancelled: @escaping () -> Bool
        ) -> PushSealError?

    /// Certificates to trust instead of the system's (a test server's).
    public let caFile: String?
    /// Whether the fetch may reach loopback, private, link-local and unique-local addresses: off
    /// by default, as for media (a gateway on the support engineer's own network, a test).
    public let allowsLocalDestinations: Bool
    /// How the bytes are got: HTTPS, or a vector's recorded answer.
    private let transport: Transport
    /// The time in UNIX seconds: the system's, or a vector's.
    private let clock: @Sendable () -> Int64

    /// A fetcher trusting `caFile`'s certificates when given, else the system's.
    public init(caFile: String? = nil, allowsLocalDestinations: Bool = false) {
        self.caFile = caFile
        self.allowsLocalDestinations = allowsLocalDestinations
        transport = Self.https(caFile: caFile, allowsLocalDestinations: allowsLocalDestinations)
        clock = { Int64(time(nil)) }
    }

    /// A fetcher at the fixed time `now` whose answers come from `transport` (the vectors'
    /// recorded answers).
    package init(now: Int64, transport: @escaping Transport) {
        caFile = nil
        allowsLocalDestinations = false
        self.transport = transport
        clock = { now }
    }

    /// The content `reference` names, checked.
    /// - Parameters:
    ///   - reference: the `fetch` member of decrypted content; one past its `expires` is not
    ///     fetched.
    ///   - deadline: when to give up (`timeout`).
    ///   - cancelled: polled while reading; true stops (`timeout`).
    /// - Throws: `fetch-expired` (past `expires`, or the server answered 404 or 410),
    ///   `fetch-failed` (any other failure to get an answer of 200), `fetch-integrity` (another
    ///   length or SHA-256), `timeout`.
    public func fetch(
        _ reference: FetchReference, deadline: ContinuousClock.Instant, cancelled: @escaping () -> Bool = { false }
    ) throws(PushSealError) -> [UInt8] {
        guard clock() < reference.expires else {
            throw PushSealError(.fetchExpired, "the reference expired at \(reference.expires), before it was fetched")
        }
        let download = FetchDownload(size: reference.size)
        if let failure = transport(reference, download, deadline, cancelled) {
            throw download.failure ?? failure
        }
        if let failure = download.failure { throw failure }
        try reference.check(download.content)
        return download.content
    }

    #if os(Linux)
        /// One HTTPS GET with `HTTPSGet`: the capability as a bearer token, no redirect.
        private static func https(caFile: String?, allowsLocalDestinations: Bool) -> Transport {
            { reference, download, deadline, cancelled in
                do throws(HTTPSFailure) {
                    try HTTPSGet(
                        url: reference.url, caFile: caFile, maximumRedirects: 0,
                        allowsLocalDestinations: allowsLocalDestinations,
                        headers: [("Authorization", reference.authorization)]
                    ).run(
                        wait: TransferWait(deadline: deadline, cancelled: cancelled), response: download.response,
                        body: download.body)
                    return nil
                } catch {
                    switch error.kind {
                    case .timeout: return PushSealError(.timeout, "the fetch did not finish in time")
                    case .tooManyRedirects:
                        return PushSealError(
                            .fetchFailed, "the server redirected: a reference is fetched from its URL alone")
                    case .insecure, .localDestination, .unreachable, .untrusted, .malformed, .stopped:
                        return PushSealError(.fetchFailed, error.detail)
                    }
                }
            }
        }
    #elseif canImport(Darwin)
        /// One GET with `URLSession`: the capability as a bearer token, no redirect.
        private static func https(caFile: String?, allowsLocalDestinations: Bool) -> Transport {
            { reference, download, deadline, cancelled in
                guard
                    let failure = URLSessionTransfer.run(
                        reference.url, headers: [("Authorization", reference.authorization)], maximumRedirects: 0,
                        into: download, allowsLocalDestinations: allowsLocalDestinations, deadline: deadline,
                        cancelled: cancelled)
                else { return nil }
                return PushSealError(failure.reason == .timeout ? .timeout : .fetchFailed, failure.detail)
            }
        }
    #else
        private static func https(caFile: String?, allowsLocalDestinations: Bool) -> Transport {
            { _, _, _, _ in
                PushSealError(
                    .fetchFailed, "no HTTPS transport on this platform (OpenSSL on Linux, URLSession on Apple's)")
            }
        }
    #endif
}

/// One fetch in flight: the answer's status and length checked, its body kept up to the
/// reference's size.
package final class FetchDownload: TransferSink {
    /// The referenced length: no more is read.
    let size: Int
    /// The body so far.
    private(set) var content: [UInt8] = []
    /// Why the fetch stopped, from a callback.
    private(set) var failure: PushSealError?

    init(size: Int) {
        self.size = size
        content.reserveCapacity(size)
    }

    var hasFailed: Bool { failure != nil }

    /// The final answer's status and `Content-Length`: anything but 200, or a length other than
    /// the reference's, ends the fetch.
    /// - Returns: false to stop.
    package func response(status: Int, length: Int?) -> Bool {
        switch status {
        case 200: break
        case 404, 410:
            failure = PushSealError(.fetchExpired, "the server answered \(status): the content is gone")
            return false
        default:
            failure = PushSealError(.fetchFailed, "the server answered \(status)")
            return false
        }
        if let length, length != size {
            failure = PushSealError(.fetchIntegrity, "Content-Length \(length) is not the \(size) bytes referenced")
            return false
        }
        return true
    }

    /// A block of the body, kept unless it makes more than the reference's size.
    /// - Returns: false to stop.
    package func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard content.count + bytes.count <= size else {
            failure = PushSealError(.fetchIntegrity, "the content is longer than the \(size) bytes referenced")
            return false
        }
        content.append(contentsOf: bytes)
        return true
    }
}
