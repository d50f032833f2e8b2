// libcurl is the transport on Linux; on Apple platforms the package links no C library, so this
// type reports that `pushseal send` is not available there (deliver with URLSession instead).
#if canImport(CPushSealShims)
    internal import CCurl
    internal import CPushSealShims

    /// Many concurrent requests multiplexed as HTTP/2 streams over one TLS connection, through
    /// libcurl's multi interface. Used from one thread; curl reconnects by itself when the
    /// connection drops, and a request caught by the drop reports a transport error.
    final class HTTP2Connection {
        /// One finished request.
        typealias Response = HTTP2Response

        /// The most of a response body read: APNs answers with a few dozen bytes of JSON.
        static let maximumResponseBody = 64 * 1024

        /// Curl failures that a retry cannot fix: certificate and TLS set-up problems, bad URLs.
        private static let permanentCurlCodes: Set<UInt32> = [
            CURLE_UNSUPPORTED_PROTOCOL.rawValue, CURLE_URL_MALFORMAT.rawValue, CURLE_PEER_FAILED_VERIFICATION.rawValue,
            CURLE_SSL_CERTPROBLEM.rawValue, CURLE_SSL_CACERT_BADFILE.rawValue, CURLE_SSL_ISSUER_ERROR.rawValue,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH.rawValue, CURLE_SSL_INVALIDCERTSTATUS.rawValue,
            CURLE_SSL_CRL_BADFILE.rawValue,
        ]

        private let multi: UnsafeMutableRawPointer
        private let caFile: String?
        private var transfers: [UnsafeMutableRawPointer: Transfer] = [:]

        /// A connection; `caFile` replaces the system's trusted certificates (a mock server's
        /// self-signed certificate, in tests).
        init(caFile: String?) throws {
            guard CPushSealShims_curl_ready() == 1 else {
                throw DeliveryError("libcurl (libcurl4-openssl-dev, or libcurl.so.4) could not be loaded")
            }
            guard let multi = CPushSealShims_curl_multi_init() else {
                throw DeliveryError("libcurl could not be initialised")
            }
            self.multi = multi
            self.caFile = caFile
            _ = CPushSealShims_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
            // One connection: requests wait for the multiplexed connection (CURLOPT_PIPEWAIT) rather than
            // open others. The client bounds the streams in flight itself.
            _ = CPushSealShims_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1)
        }

        deinit {
            for (easy, transfer) in transfers {
                CPushSealShims_curl_multi_remove_handle(multi, easy)
                CPushSealShims_curl_easy_cleanup(easy)
                CPushSealShims_curl_slist_free_all(transfer.headerList)
            }
            CPushSealShims_curl_multi_cleanup(multi)
        }

        /// Requests in flight.
        var activeCount: Int { transfers.count }

        /// Starts `POST url` with `headers` and `body`; its response comes back from ``poll(timeoutMilliseconds:)`` with `id`.
        func post(id: Int, url: String, headers: [(name: String, value: String)], body: [UInt8]) throws {
            guard let easy = CPushSealShims_curl_easy_init() else {
                throw DeliveryError("libcurl could not make a request")
            }
            let transfer = Transfer(id: id)
            for header in headers {
                transfer.headerList = CPushSealShims_curl_slist_append(
                    transfer.headerList, "\(header.name): \(header.value)")
            }
            // No "Expect: 100-continue" round trip; the body is JSON (libcurl would otherwise say
            // application/x-www-form-urlencoded).
            transfer.headerList = CPushSealShims_curl_slist_append(transfer.headerList, "Expect:")
            transfer.headerList = CPushSealShims_curl_slist_append(
                transfer.headerList, "Content-Type: application/json")
            let context = Unmanaged.passUnretained(transfer).toOpaque()
            var ok = CPushSealShims_curl_easy_setopt_string(easy, CURLOPT_URL, url) == CURLE_OK
            ok =
                ok
                && CPushSealShims_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
                    == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1) == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1) == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, 30_000) == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_long(easy, CURLOPT_POST, 1) == CURLE_OK
            ok =
                ok
                && CPushSealShims_curl_easy_setopt_size(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                    == CURLE_OK
            ok =
                ok
                && body.withUnsafeBytes {
                    CPushSealShims_curl_easy_setopt_pointer(
                        easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
                } == CURLE_OK
            ok =
                ok && CPushSealShims_curl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, transfer.headerList) == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_callback(easy, CURLOPT_WRITEFUNCTION, bodyCallback) == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context) == CURLE_OK
            ok =
                ok && CPushSealShims_curl_easy_setopt_callback(easy, CURLOPT_HEADERFUNCTION, headerCallback) == CURLE_OK
            ok = ok && CPushSealShims_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context) == CURLE_OK
            if let caFile {
                ok = ok && CPushSealShims_curl_easy_setopt_string(easy, CURLOPT_CAINFO, caFile) == CURLE_OK
            }
            guard ok, CPushSealShims_curl_multi_add_handle(multi, easy) == CURLM_OK else {
                CPushSealShims_curl_easy_cleanup(easy)
                CPushSealShims_curl_slist_free_all(transfer.headerList)
                throw DeliveryError("libcurl refused the request options")
            }
            transfers[easy] = transfer
        }

        /// Drives the transfers and returns those that finished, waiting at most `timeoutMilliseconds`
        /// for the network only when none has finished yet (a transfer often completes within the
        /// first `perform`; waiting then would cost a whole timeout per request).
        func poll(timeoutMilliseconds: Int) -> [(id: Int, response: Response)] {
            var running: Int32 = 0
            CPushSealShims_curl_multi_perform(multi, &running)
            var finished = collectFinished()
            if finished.isEmpty {
                CPushSealShims_curl_multi_poll(multi, Int32(timeoutMilliseconds))
                CPushSealShims_curl_multi_perform(multi, &running)
                finished = collectFinished()
            }
            return finished
        }

        /// The transfers curl reports done, each removed and released.
        private func collectFinished() -> [(id: Int, response: Response)] {
            var finished: [(id: Int, response: Response)] = []
            var queued: Int32 = 0
            while let message = CPushSealShims_curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = transfers.removeValue(forKey: easy)
                else { continue }
                finished.append((transfer.id, Self.response(easy, transfer, code: message.pointee.data.result)))
                CPushSealShims_curl_multi_remove_handle(multi, easy)
                CPushSealShims_curl_easy_cleanup(easy)
                CPushSealShims_curl_slist_free_all(transfer.headerList)
            }
            return finished
        }
    }

    extension HTTP2Connection {
        /// What a finished transfer amounts to. A response that did not come over HTTP/2 is a
        /// permanent transport failure: APNs speaks only HTTP/2, so an HTTP/1.1 answer is not APNs.
        fileprivate static func response(_ easy: UnsafeMutableRawPointer, _ transfer: Transfer, code: CURLcode)
            -> Response
        {
            if transfer.bodyOverflowed {
                return Response(
                    status: nil, headers: [:], body: [],
                    transportError: "the response body was over \(maximumResponseBody) bytes (APNs answers are small)",
                    transportFailureIsPermanent: true)
            }
            var status = 0
            _ = CPushSealShims_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            guard code == CURLE_OK, status != 0 else {
                return Response(
                    status: nil, headers: [:], body: [],
                    transportError: String(cString: CPushSealShims_curl_easy_strerror(code)),
                    transportFailureIsPermanent: permanentCurlCodes.contains(code.rawValue))
            }
            var version = 0
            _ = CPushSealShims_curl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
            guard version == CURL_HTTP_VERSION_2_0 else {
                return Response(
                    status: nil, headers: [:], body: [],
                    transportError: "the server did not negotiate HTTP/2 (APNs speaks only HTTP/2)",
                    transportFailureIsPermanent: true)
            }
            return Response(status: status, headers: transfer.headers, body: transfer.body, transportError: nil)
        }
    }

    /// A request in flight: the buffers curl writes into, and what must be freed after.
    private final class Transfer {
        let id: Int
        var body: [UInt8] = []
        /// Set when the body passed ``HTTP2Connection/maximumResponseBody``; the transfer is aborted.
        var bodyOverflowed = false
        var headers: [String: String] = [:]
        var headerList: UnsafeMutablePointer<curl_slist>?

        init(id: Int) { self.id = id }
    }

    /// Appends a response body chunk to its transfer.
    private let bodyCallback: CPushSealShims_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        guard transfer.body.count + size * count <= HTTP2Connection.maximumResponseBody else {
            transfer.bodyOverflowed = true
            return 0  // curl aborts the transfer
        }
        transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
        return size * count
    }

    /// Records one response header line (`name: value`) on its transfer.
    private let headerCallback: CPushSealShims_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
        if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            transfer.headers[name] = value
        }
        return size * count
    }

    extension Substring {
        /// Without leading and trailing spaces, tabs and line ends.
        fileprivate var trimmingSpaces: String {
            // `Character.isWhitespace`, because "\r\n" is one Character, equal to neither "\r" nor "\n".
            guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
            else {
                return ""
            }
            return String(self[first...last])
        }
    }
#else
    /// On Apple platforms: no libcurl, so no connection can be made (see the top of this file).
    final class HTTP2Connection {
        /// One finished request (never produced here).
        typealias Response = HTTP2Response

        init(caFile: String?) throws {
            throw DeliveryError("APNsClient's HTTP/2 transport is libcurl, on Linux; on Apple platforms use URLSession")
        }

        func post(id: Int, url: String, headers: [(name: String, value: String)], body: [UInt8]) throws {}

        func poll(timeoutMilliseconds: Int) -> [(id: Int, response: Response)] { [] }
    }
#endif
