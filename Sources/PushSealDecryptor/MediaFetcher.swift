public import PushSealCore
internal import PushSealPOSIX

#if canImport(CPushSealShims)
    internal import CCurl
    internal import CPushSealShims
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
/// The transport is libcurl, opened at run time, on Linux, and `URLSession` on Apple platforms
/// (`URLSessionTransfer`: written for them, not compiled or tested on this project's Linux CI).
public struct MediaFetcher: Sendable {
    /// Where attachments are written (the app's container); made 0700 on first use if missing.
    public let directory: String
    /// Certificates to trust instead of the system's (a test server's).
    public let caFile: String?

    /// A fetcher writing into `directory`.
    public init(directory: String, caFile: String? = nil) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.caFile = caFile
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

    #if canImport(CPushSealShims)
        /// Runs the download to its end, its failure, the deadline or cancellation.
        private func transfer(
            _ download: Download, deadline: ContinuousClock.Instant, cancelled: () -> Bool
        ) -> MediaFailure? {
            guard CPushSealShims_curl_ready() == 1, let multi = CPushSealShims_curl_multi_init() else {
                return MediaFailure(.unreachable, "libcurl (libcurl4) could not be loaded")
            }
            defer { CPushSealShims_curl_multi_cleanup(multi) }
            guard let easy = CPushSealShims_curl_easy_init() else {
                return MediaFailure(.unreachable, "libcurl could not make a request")
            }
            defer { CPushSealShims_curl_easy_cleanup(easy) }
            let context = Unmanaged.passUnretained(download).toOpaque()
            var ok = CPushSealShims_curl_easy_setopt_string(easy, CURLOPT_URL, download.descriptor.url) == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "https") == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "https") == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1) == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, 3) == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1) == CURLE_OK
            ok =
                ok
                && CPushSealShims_curl_easy_setopt_callback(easy, CURLOPT_WRITEFUNCTION, mediaBodyCallback) == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context) == CURLE_OK
            ok =
                ok
                && CPushSealShims_curl_easy_setopt_callback(easy, CURLOPT_HEADERFUNCTION, mediaHeaderCallback)
                    == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context) == CURLE_OK
            if let caFile {
                ok = ok && CPushSealShims_curl_easy_setopt_string(easy, CURLOPT_CAINFO, caFile) == CURLE_OK
            }
            guard ok, CPushSealShims_curl_multi_add_handle(multi, easy) == CURLM_OK else {
                return MediaFailure(.unreachable, "libcurl refused the request options")
            }
            defer { CPushSealShims_curl_multi_remove_handle(multi, easy) }
            var running: Int32 = 1
            while running > 0 {
                guard ContinuousClock.now < deadline, !cancelled() else {
                    return MediaFailure(.timeout, "the download did not finish in time")
                }
                CPushSealShims_curl_multi_perform(multi, &running)
                if running > 0 { CPushSealShims_curl_multi_poll(multi, 50) }
            }
            var queued: Int32 = 0
            var code = CURLE_OK
            while let message = CPushSealShims_curl_multi_info_read(multi, &queued) {
                if message.pointee.msg == CURLMSG_DONE { code = message.pointee.data.result }
            }
            if let failure = download.failure { return failure }
            guard code == CURLE_OK else { return Self.failure(code) }
            var status = 0
            _ = CPushSealShims_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            guard status == 200 else { return MediaFailure(.unreachable, "the server answered \(status)") }
            return nil
        }

        private static func failure(_ code: CURLcode) -> MediaFailure {
            let text = String(cString: CPushSealShims_curl_easy_strerror(code))
            switch code {
            case CURLE_UNSUPPORTED_PROTOCOL: return MediaFailure(.insecureURL, "not https (\(text))")
            case CURLE_OPERATION_TIMEDOUT: return MediaFailure(.timeout, text)
            default: return MediaFailure(.unreachable, text)
            }
        }
    #elseif canImport(Darwin)
        /// Runs the download with `URLSession`, feeding the same checks as the libcurl transport.
        private func transfer(
            _ download: Download, deadline: ContinuousClock.Instant, cancelled: () -> Bool
        ) -> MediaFailure? {
            URLSessionTransfer.run(download, deadline: deadline, cancelled: cancelled)
        }
    #else
        private func transfer(
            _ download: Download, deadline: ContinuousClock.Instant, cancelled: () -> Bool
        ) -> MediaFailure? {
            MediaFailure(.unreachable, "no HTTPS transport on this platform (libcurl on Linux, URLSession on Apple's)")
        }
    #endif
}

/// One download in flight: the response's state as its headers and body arrive.
final class Download {
    let descriptor: MediaDescriptor
    let opener: MediaStreamOpener
    let file: PendingFile
    /// The status of the response whose headers are arriving (each redirect starts a new one).
    var status = 0
    /// Why the transfer was aborted from a callback.
    var failure: MediaFailure?

    init(descriptor: MediaDescriptor, opener: MediaStreamOpener, file: PendingFile) {
        self.descriptor = descriptor
        self.opener = opener
        self.file = file
    }

    /// A header line of the response: its status line, or its `Content-Length`.
    /// - Returns: false to abort.
    func header(_ line: String) -> Bool {
        if line.hasPrefix("HTTP/") {
            status = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return true
        }
        guard status == 200, let colon = line.firstIndex(of: ":"),
            line[..<colon].lowercased() == "content-length"
        else { return true }
        let value = line[line.index(after: colon)...].filter { !$0.isWhitespace }
        guard let declared = Int(value) else { return true }
        if declared > descriptor.size {
            failure = MediaFailure(
                .tooLarge, "Content-Length \(declared) is over the \(descriptor.size) bytes described")
            return false
        }
        if declared < descriptor.size {
            failure = MediaFailure(
                .integrity, "Content-Length \(declared) is under the \(descriptor.size) bytes described")
            return false
        }
        return true
    }

    /// A piece of the body: hashed, decrypted and written as it arrives.
    /// - Returns: false to abort.
    func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard status == 200 else {
            failure = MediaFailure(.unreachable, "the server answered \(status)")
            return false
        }
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

#if canImport(CPushSealShims)
    private let mediaBodyCallback: CPushSealShims_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let download = Unmanaged<Download>.fromOpaque(context).takeUnretainedValue()
        return download.body(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
    }

    private let mediaHeaderCallback: CPushSealShims_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let download = Unmanaged<Download>.fromOpaque(context).takeUnretainedValue()
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
        return download.header(line) ? size * count : 0
    }
#endif
