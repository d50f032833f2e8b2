public import PushSealCore
internal import PushSealPOSIX

#if os(Linux)
    internal import PushSealHTTPS
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Downloads a media object and opens it as it arrives (media-v1.md, "Opening"): HTTPS only, at
/// most 3 redirects and none to anything but HTTPS, TLS verified, the size checked against the
/// descriptor from `Content-Length` and while streaming, each chunk decrypted into a temporary
/// file in `directory`, which becomes `<UUID>.<extension>` only after every check passed.
/// Nothing is left behind on failure. Memory stays constant: one chunk at a time.
///
/// The transport is `HTTPSGet` (HTTP/1.1 over OpenSSL's TLS client) on Linux, and `URLSession`
/// on Apple platforms (`URLSessionTransfer`: built only there; this project's Linux CI type-checks
/// it but cannot run it).
public struct MediaFetcher: Sendable {
    /// Where attachments are written (the app's container); made 0700 on first use if missing.
    public let directory: String
    /// Certificates to trust instead of the system's (a test server's).
    public let caFile: String?
    /// Whether downloads may reach loopback, private (RFC 1918), link-local and unique-local
    /// addresses. Off by default: a descriptor or a CDN's redirect could otherwise make the phone
    /// send requests into its own network (`media-local-destination`). For tests, and for a
    /// support engineer whose CDN mirror is on their own network.
    public let allowsLocalDestinations: Bool

    /// How old a hidden `.part` file of the directory must be to be swept as a dead fetch's:
    /// longer than any extension runs.
    static let staleSeconds = 120

    /// A fetcher writing into `directory`.
    public init(directory: String, caFile: String? = nil, allowsLocalDestinations: Bool = false) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.caFile = caFile
        self.allowsLocalDestinations = allowsLocalDestinations
    }

    /// Fetches, checks and writes the object `descriptor` describes.
    /// - Parameters:
    ///   - descriptor: the `media` member of decrypted content.
    ///   - deadline: when to give up (`media-timeout`).
    ///   - cancelled: polled while downloading; true stops the download (`media-timeout`).
    public func fetch(
        _ descriptor: MediaDescriptor, deadline: ContinuousClock.Instant, cancelled: @escaping () -> Bool = { false }
    ) -> Result<MediaAttachment, MediaFailure> {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            return .failure(
                MediaFailure(.unreachable, "cannot create \(directory): \(String(cString: strerror(errno)))"))
        }
        StoreProtection.apply(to: directory)
        // What a killed fetch (this process's, or another extension's) may have left, where the
        // platform has no unnamed files: never more than a deadline old.
        PendingFile.removeStale(in: directory, olderThan: Self.staleSeconds)
        let path = "\(directory)/\(RandomUUID.make()).\(descriptor.type.fileExtension)"
        let file: PendingFile
        do {
            file = try PendingFile(path: path)
        } catch {
            return .failure(MediaFailure(.unreachable, "cannot create a file in \(directory): \(error)"))
        }
        let opener = MediaStreamOpener(descriptor: descriptor)
        let download = Download(descriptor: descriptor, opener: opener, file: file)
        if let failure = transfer(download, deadline: deadline, cancelled: cancelled) { return .failure(failure) }
        do {
            try opener.finish()
        } catch {
            return .failure(error)
        }
        do {
            try file.commit()
        } catch {
            return .failure(MediaFailure(.unreachable, "cannot write the attachment: \(error)"))
        }
        return .success(MediaAttachment(file: path, type: descriptor.type, length: descriptor.length))
    }

    #if os(Linux)
        /// Runs the download to its end, its failure, the deadline or cancellation.
        private func transfer(
            _ download: Download, deadline: ContinuousClock.Instant, cancelled: @escaping () -> Bool
        ) -> MediaFailure? {
            do {
                try HTTPSGet(
                    url: download.descriptor.url, caFile: caFile, maximumRedirects: 3,
                    allowsLocalDestinations: allowsLocalDestinations
                ).run(
                    wait: TransferWait(deadline: deadline, cancelled: cancelled),
                    response: download.response, body: download.body)
                return nil
            } catch {
                if let failure = download.failure { return failure }
                switch error.kind {
                case .insecure: return MediaFailure(.insecureURL, error.detail)
                case .localDestination: return MediaFailure(.localDestination, error.detail)
                case .timeout: return MediaFailure(.timeout, error.detail)
                case .tooManyRedirects, .unreachable, .untrusted, .malformed, .stopped:
                    return MediaFailure(.unreachable, error.detail)
                }
            }
        }
    #elseif canImport(Darwin)
        /// Runs the download with `URLSession`, feeding the same checks as the Linux transport.
        private func transfer(
            _ download: Download, deadline: ContinuousClock.Instant, cancelled: () -> Bool
        ) -> MediaFailure? {
            URLSessionTransfer.run(
                download.descriptor.url, into: download, allowsLocalDestinations: allowsLocalDestinations,
                deadline: deadline, cancelled: cancelled) ?? download.failure
        }
    #else
        private func transfer(
            _ download: Download, deadline: ContinuousClock.Instant, cancelled: () -> Bool
        ) -> MediaFailure? {
            MediaFailure(.unreachable, "no HTTPS transport on this platform (OpenSSL on Linux, URLSession on Apple's)")
        }
    #endif
}

/// One download in flight: the response's state as its headers and body arrive.
final class Download: TransferSink {
    let descriptor: MediaDescriptor
    let opener: MediaStreamOpener
    let file: PendingFile
    /// Why the transfer was aborted from a callback.
    var failure: MediaFailure?

    var hasFailed: Bool { failure != nil }

    init(descriptor: MediaDescriptor, opener: MediaStreamOpener, file: PendingFile) {
        self.descriptor = descriptor
        self.opener = opener
        self.file = file
    }

    /// The final response's status and declared length: anything but 200, or a length other
    /// than the descriptor's size, ends the download.
    /// - Returns: false to abort.
    func response(status: Int, length: Int?) -> Bool {
        guard status == 200 else {
            failure = MediaFailure(.unreachable, "the server answered \(status)")
            return false
        }
        guard let length else { return true }
        if length > descriptor.size {
            failure = MediaFailure(.tooLarge, "Content-Length \(length) is over the \(descriptor.size) bytes described")
            return false
        }
        if length < descriptor.size {
            failure = MediaFailure(
                .integrity, "Content-Length \(length) is under the \(descriptor.size) bytes described")
            return false
        }
        return true
    }

    /// A piece of the body: hashed, decrypted and written as it arrives.
    /// - Returns: false to abort.
    func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do {
            try opener.append(bytes) { plain in
                do {
                    try file.write(plain)
                } catch {
                    throw MediaFailure(.unreachable, "cannot write the attachment: \(error)")
                }
            }
            return true
        } catch let failure as MediaFailure {
            self.failure = failure
            return false
        } catch {
            self.failure = MediaFailure(.integrity, "\(error)")
            return false
        }
    }
}
