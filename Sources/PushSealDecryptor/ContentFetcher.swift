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
    /// Certificates to trust instead of the system's (a test server's).
    public let caFile: String?
    /// Whether the fetch may reach loopback, private, link-local and unique-local addresses: off
    /// by default, as for media (a gateway on the support engineer's own network, a test).
    public let allowsLocalDestinations: Bool

    /// A fetcher trusting `caFile`'s certificates when given, else the system's.
    public init(caFile: String? = nil, allowsLocalDestinations: Bool = false) {
        self.caFile = caFile
        self.allowsLocalDestinations = allowsLocalDestinations
    }

    /// The content `reference` names, checked.
    /// - Parameters:
    ///   - reference: the `fetch` member of decrypted content.
    ///   - now: the time, in UNIX seconds: a reference past its `expires` is not fetched.
    ///   - deadline: when to give up (`timeout`).
    ///   - cancelled: polled while reading; true stops (`timeout`).
    /// - Throws: `fetch-expired` (past `expires`, or the server answered 404 or 410),
    ///   `fetch-failed` (any other failure to get an answer of 200), `fetch-integrity` (another
    ///   length or SHA-256), `timeout`.
    public func fetch(
        _ reference: FetchReference, now: Int64, deadline: ContinuousClock.Instant,
        cancelled: @escaping () -> Bool = { false }
    ) throws(PushSealError) -> [UInt8] {
        guard now < reference.expires else {
            throw PushSealError(.fetchExpired, "the reference expired at \(reference.expires), before it was fetched")
        }
        let download = FetchDownload(size: reference.size)
        if let failure = transfer(reference, into: download, deadline: deadline, cancelled: cancelled) {
            throw download.failure ?? failure
        }
        if let failure = download.failure { throw failure }
        try reference.check(download.content)
        return download.content
    }

    /// The current time in UNIX seconds, as ``fetch(_:now:deadline:cancelled:)`` takes it.
    public static func unixTime() -> Int64 { Int64(time(nil)) }

    #if os(Linux)
        private func transfer(
            _ reference: FetchReference, into download: FetchDownload, deadline: ContinuousClock.Instant,
            cancelled: @escaping () -> Bool
        ) -> PushSealError? {
            do {
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
    #elseif canImport(Darwin)
        private func transfer(
            _ reference: FetchReference, into download: FetchDownload, deadline: ContinuousClock.Instant,
            cancelled: @escaping () -> Bool
        ) -> PushSealError? {
            guard
                let failure = URLSessionTransfer.run(
                    reference.url, headers: [("Authorization", reference.authorization)], maximumRedirects: 0,
                    into: download, allowsLocalDestinations: allowsLocalDestinations, deadline: deadline,
                    cancelled: cancelled)
            else { return nil }
            return PushSealError(failure.reason == .timeout ? .timeout : .fetchFailed, failure.detail)
        }
    #else
        private func transfer(
            _ reference: FetchReference, into download: FetchDownload, deadline: ContinuousClock.Instant,
            cancelled: @escaping () -> Bool
        ) -> PushSealError? {
            PushSealError(.fetchFailed, "no HTTPS transport on this platform (OpenSSL on Linux, URLSession on Apple's)")
        }
    #endif
}

/// One fetch in flight: the answer's status and length checked, its body kept up to the
/// reference's size.
final class FetchDownload: TransferSink {
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

    func response(status: Int, length: Int?) -> Bool {
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

    func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard content.count + bytes.count <= size else {
            failure = PushSealError(.fetchIntegrity, "the content is longer than the \(size) bytes referenced")
            return false
        }
        content.append(contentsOf: bytes)
        return true
    }
}
