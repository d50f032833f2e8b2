internal import PushSealCore

#if canImport(CNGHTTP2)
    internal import CNGHTTP2
    internal import PushSealHTTPS
    internal import PushSealURL
    import Glibc

    /// One HTTP/2 connection: an nghttp2 client session over a verified TLS connection that
    /// negotiated `h2` by ALPN. nghttp2 keeps the protocol (framing, HPACK, stream states, both
    /// directions' flow control); this type moves its bytes and turns its reports into
    /// ``HTTP2Response``s. The caller's poll loop drives it: ``pollEvents`` says what to wait for,
    /// ``service()`` reads and writes once the socket is ready, ``flush()`` writes what was
    /// submitted, ``checkTimers(now:)`` pings a connection whose streams stall and ends overdue
    /// streams. Used from one thread, inside ``BrokenPipeGuard/run(_:)``: a write to a connection
    /// the server reset must fail, not raise SIGPIPE.
    ///
    /// Every rule that ends a request holds whatever the peer does: a request's deadline is kept
    /// here, not by a RST_STREAM the peer would have to read; only a PING's ACK proves the peer
    /// alive (any other frame may be sent by a peer that reads nothing); and a connection that
    /// takes none of the client's bytes for ``writeStallTimeout`` is given up.
    final class HTTP2Session {
        /// nghttp2's `REFUSED_STREAM`: the server did not process the stream.
        static let refusedStream = NGHTTP2_REFUSED_STREAM.rawValue
        /// The most of a response body read: APNs answers with a few dozen bytes of JSON.
        static let maximumResponseBody = 64 * 1024
        /// How long a request waits for its response by default before the connection is given up.
        static let defaultAnswerTimeout = Duration.seconds(30)
        /// A pause in every open stream's progress, after which the server is sent a PING.
        static let pingAfterSilence = Duration.seconds(5)
        /// How long a PING waits for its ACK before the connection is given up.
        static let pingTimeout = Duration.seconds(10)
        /// How long bytes may wait for the socket to take any of them before the connection is
        /// given up: a peer that stops reading must not hold the client.
        static let writeStallTimeout = Duration.seconds(10)
        /// The SETTINGS_MAX_HEADER_LIST_SIZE advertised and enforced: the bytes of one response's
        /// header fields, informational (1xx) blocks included, counted as RFC 9113 counts them
        /// (name, value and 32 per field). APNs answers with a few fields.
        static let maximumHeaderListSize = 16 * 1024
        /// The response headers kept: those APNs documents, and RFC 8030's `location` (the push
        /// message's resource) and `retry-after`. Others are counted, then dropped.
        static let keptHeaders: Set<String> = ["apns-id", "apns-unique-id", "location", "retry-after"]
        /// Bytes taken from nghttp2 before the socket is written to.
        private static let outboundChunk = 64 * 1024

        private let tls: TLSConnection
        private let session: OpaquePointer
        /// `host:port`, the `:authority` of every request.
        private let authority: String
        private var streams: [Int32: HTTP2Stream] = [:]
        /// Bytes nghttp2 produced that the socket has not taken yet, from ``outboundStart`` on.
        private var outbound: [UInt8] = []
        private var outboundStart = 0
        private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        private var finished: [(id: Int, response: HTTP2Response)] = []
        /// How long a request may wait for its answer, from its submission.
        private let answerTimeout: Duration
        /// The last time an open stream moved (headers, data or its end arrived) or a PING was
        /// acknowledged.
        private var lastProgress = ContinuousClock.now
        private var pingSentAt: ContinuousClock.Instant?
        /// The last time the socket took bytes, or had none waiting.
        private var lastWriteProgress = ContinuousClock.now
        /// What nghttp2 last reported as wrong, for the reason a session it ended gives.
        fileprivate var lastLibraryError: String?
        private var nextDeadlineCheck = ContinuousClock.now
        /// When the last stream ended, for a connection left idle.
        private(set) var idleSince = ContinuousClock.now
        /// The server's first SETTINGS frame has arrived: its stream limit is known.
        private var settingsReceived = false
        /// The server sent GOAWAY: no new stream is opened here.
        private var goAwayReceived = false
        /// Why the connection is unusable, once it is.
        private(set) var closedReason: TransportError?

        /// Connects to `origin`, completes the TLS handshake and waits for the server's SETTINGS.
        /// - Throws: ``HTTP2Session/ConnectFailure``, permanent for a certificate that does not
        ///   verify or a server that does not speak HTTP/2.
        static func connect(
            to origin: HTTPSURL, context: TLSContext, allowsLocalDestinations: Bool, timeout: Duration,
            answerTimeout: Duration
        ) throws(ConnectFailure) -> HTTP2Session {
            let wait = TransferWait(deadline: .now + timeout, cancelled: { false })
            let tls: TLSConnection
            do {
                tls = try TLSConnection.open(
                    to: origin, context: context, allowLocal: allowsLocalDestinations, wait: wait)
            } catch {
                // A certificate that does not verify, or a host that is only local where local
                // destinations are refused, stays so: retrying cannot help.
                throw ConnectFailure(
                    error: TransportError(error), permanent: error.kind == .untrusted || error.kind == .localDestination
                )
            }
            guard tls.negotiatedProtocol == "h2" else {
                throw ConnectFailure(
                    error: TransportError(
                        .protocolViolation, "the server did not negotiate HTTP/2 (APNs speaks only HTTP/2)"),
                    permanent: true,
                    lacksHTTP2: true)
            }
            let session = try HTTP2Session(tls: tls, authority: origin.authority, answerTimeout: answerTimeout)
            while !session.settingsReceived {
                if let reason = session.closedReason { throw ConnectFailure(error: reason, permanent: false) }
                guard ContinuousClock.now < wait.deadline else {
                    throw ConnectFailure(
                        error: TransportError(.timeout, "the server sent no HTTP/2 SETTINGS in \(timeout)"),
                        permanent: false)
                }
                var entry = pollfd(fd: tls.descriptor, events: session.pollEvents, revents: 0)
                _ = poll(&entry, 1, 50)
                session.service()
            }
            return session
        }

        /// Why a connection could not be made.
        struct ConnectFailure: Error {
            /// What kind of failure, and why.
            let error: TransportError
            /// True when trying again cannot help.
            let permanent: Bool
            /// True when the server chose another protocol than HTTP/2 (a Web Push service then
            /// gets HTTP/1.1).
            var lacksHTTP2 = false
        }

        private init(tls: TLSConnection, authority: String, answerTimeout: Duration) throws(ConnectFailure) {
            self.tls = tls
            self.authority = authority
            self.answerTimeout = answerTimeout
            var callbacks: OpaquePointer?
            guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
                throw ConnectFailure(
                    error: TransportError(.client, "nghttp2 cannot allocate its callbacks"), permanent: false)
            }
            defer { nghttp2_session_callbacks_del(callbacks) }
            HTTP2SessionCallbacks.install(in: callbacks)
            var session: OpaquePointer?
            // The session is made before `self` is complete, so its user data is set just after.
            guard nghttp2_session_client_new(&session, callbacks, nil) == 0, let session else {
                throw ConnectFailure(error: TransportError(.client, "nghttp2 cannot make a session"), permanent: false)
            }
            self.session = session
            nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
            // No server push, and a bound on response headers; everything else at HTTP/2's defaults.
            var settings = [
                nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
                nghttp2_settings_entry(
                    settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                    value: UInt32(Self.maximumHeaderListSize)),
            ]
            guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0
            else {
                throw ConnectFailure(
                    error: TransportError(.client, "nghttp2 refused the client's SETTINGS"), permanent: false)
            }
            flush()
        }

        deinit {
            nghttp2_session_del(session)
            readBuffer.deallocate()
        }

        /// Streams sent and not yet answered.
        var openStreamCount: Int { streams.count }

        /// The server's SETTINGS_MAX_CONCURRENT_STREAMS.
        var maximumConcurrentStreams: Int {
            Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        }

        /// Whether new requests may start here: the connection is up and the server sent no GOAWAY.
        var acceptsRequests: Bool {
            closedReason == nil && !goAwayReceived && nghttp2_session_check_request_allowed(session) != 0
        }

        /// Whether one more request fits within the server's stream limit now.
        var hasRoom: Bool { acceptsRequests && streams.count < maximumConcurrentStreams }

        /// Whether nothing more will come from this connection: it closed, or it is going away
        /// and every stream it accepted has ended.
        var isDone: Bool { closedReason != nil || (!acceptsRequests && streams.isEmpty) }

        /// The events to poll the socket for: always input, output while bytes wait to be sent.
        /// With nothing to send (flow control holds the rest) it waits for input alone, never
        /// spinning on a writable socket.
        var pollEvents: Int16 {
            Int16(POLLIN) | (outbound.count > outboundStart ? Int16(POLLOUT) : 0)
        }

        /// The socket, for the caller's poll.
        var descriptor: Int32 { tls.descriptor }

        /// Opens a stream for `POST path` with `headers` and `body`, sent at the next ``flush()``
        /// (requests submitted together go out in one write); its response comes back from
        /// ``takeFinished()`` with `id`.
        /// - Returns: false when nghttp2 cannot open another stream here (it went away, or ran out of ids).
        func submit(id: Int, path: String, headers: [(name: String, value: String)], body: [UInt8]) -> Bool {
            guard acceptsRequests else { return false }
            let stream = HTTP2Stream(requestID: id, body: body, deadline: .now + answerTimeout)
            let fields =
                [(":method", "POST"), (":scheme", "https"), (":authority", authority), (":path", path)] + headers + [
                    ("content-type", "application/json"), ("content-length", String(body.count)),
                ]
            let pointer = Unmanaged.passUnretained(stream).toOpaque()
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: pointer), read_callback: HTTP2SessionCallbacks.readBody)
            let streamID = HeaderBlock(fields).withFields { fields, count in
                nghttp2_submit_request(session, nil, fields, count, &provider, pointer)
            }
            guard streamID > 0 else { return false }
            if streams.isEmpty { lastProgress = .now }
            streams[streamID] = stream
            // Written at the next ``flush()``, with whatever else was submitted meanwhile.
            return true
        }

        /// Reads what has arrived, hands it to nghttp2 and writes what it answered.
        func service() {
            guard closedReason == nil else { return }
            do {
                // A bounded number of reads, so that one busy connection cannot starve the writes.
                reading: for _ in 0..<32 {
                    let (outcome, count) = try tls.readAvailable(into: readBuffer)
                    switch outcome {
                    case .done:
                        let consumed = nghttp2_session_mem_recv(
                            session, readBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), count)
                        guard consumed >= 0 else {
                            flush()
                            close(
                                .protocolViolation,
                                "HTTP/2 protocol error from the server: "
                                    + (lastLibraryError ?? Self.describe(Int32(consumed))))
                            return
                        }
                    case .wantsRead, .wantsWrite:
                        break reading
                    case .closed:
                        close(.network, "the server closed the connection before answering")
                        return
                    }
                }
            } catch {
                close(TransportError(TransportError(error).kind, "the connection failed: \(error.detail)"))
                return
            }
            flush()
            endIfSessionOver()
        }

        /// Closes the connection once nghttp2 wants neither to read nor to write: it ended the
        /// session itself (a protocol error it detected, after its GOAWAY went out), with the
        /// error it reported.
        private func endIfSessionOver() {
            guard closedReason == nil, nghttp2_session_want_read(session) == 0,
                nghttp2_session_want_write(session) == 0
            else { return }
            close(
                .protocolViolation,
                "HTTP/2 protocol error from the server: \(lastLibraryError ?? "nghttp2 ended the session")")
        }

        /// Gives up a connection whose writes made no progress, or one that let a request pass its
        /// deadline unanswered; pings one whose streams stalled, and gives it up when the PING
        /// goes unacknowledged. Each rule is local: none waits for the peer to read anything.
        func checkTimers(now: ContinuousClock.Instant) {
            guard closedReason == nil else { return }
            if outbound.count == outboundStart {
                lastWriteProgress = now
            } else if now - lastWriteProgress > Self.writeStallTimeout {
                close(.timeout, "the server took none of the client's bytes in \(Self.writeStallTimeout)")
                return
            }
            guard !streams.isEmpty else { return }
            if let pingSentAt {
                if now - pingSentAt > Self.pingTimeout {
                    close(.timeout, "the connection went silent (no PING acknowledged in \(Self.pingTimeout))")
                    return
                }
            } else if now - lastProgress > Self.pingAfterSilence, nghttp2_submit_ping(session, 0, nil) == 0 {
                pingSentAt = now
                flush()
            }
            guard now >= nextDeadlineCheck else { return }
            nextDeadlineCheck = now + .milliseconds(100)
            // A request past its deadline ends here and now, with the whole connection: a server
            // that leaves one request unanswered this long is failing, and a RST_STREAM could sit
            // unsent in a socket it no longer reads.
            if let overdue = streams.values.first(where: { $0.deadline < now }) {
                close(
                    .timeout,
                    overdue.started
                        ? "no answer in \(answerTimeout)"
                        : Self.noStreamReason(after: answerTimeout, limit: maximumConcurrentStreams))
            }
        }

        /// Why a connection was given up whose server let no waiting request start.
        static func noStreamReason(after timeout: Duration, limit: Int) -> String {
            "the server let no request start in \(timeout) (its SETTINGS_MAX_CONCURRENT_STREAMS is \(limit))"
        }

        /// The requests that finished since the last call.
        func takeFinished() -> [(id: Int, response: HTTP2Response)] {
            defer { finished.removeAll(keepingCapacity: true) }
            return finished
        }

        /// Ends the connection, locally and at once: every open stream finishes with `reason`, a
        /// transient transport error. Its socket closes when the session is released.
        func close(_ kind: TransportFailure, _ detail: String) {
            close(TransportError(kind, detail))
        }

        /// Ends the connection for `reason`, as ``close(_:_:)`` does.
        func close(_ reason: TransportError) {
            guard closedReason == nil else { return }
            closedReason = reason
            for (_, stream) in streams.sorted(by: { $0.key < $1.key }) {
                finished.append((stream.requestID, stream.failure ?? HTTP2Response(transportError: reason)))
            }
            streams.removeAll()
        }

        /// Says goodbye to the server (GOAWAY) and ends the connection; for one no longer needed.
        func shutdown() {
            guard closedReason == nil else { return }
            nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
            flush()
            close(.network, "the connection was closed by the client")
        }

        /// Moves nghttp2's output to the socket, as much as it takes without waiting.
        func flush() {
            guard closedReason == nil else { return }
            do {
                while true {
                    while outbound.count - outboundStart < Self.outboundChunk {
                        var data: UnsafePointer<UInt8>?
                        let count = nghttp2_session_mem_send(session, &data)
                        guard count >= 0 else {
                            close(.client, "HTTP/2 failure: \(Self.describe(Int32(count)))")
                            return
                        }
                        guard count > 0, let data else { break }
                        outbound.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
                    }
                    guard outbound.count > outboundStart else { return }
                    let (outcome, written) = try outbound.withUnsafeBytes { bytes in
                        try tls.writeAvailable(UnsafeRawBufferPointer(rebasing: bytes[outboundStart...]))
                    }
                    switch outcome {
                    case .done:
                        if written > 0 { lastWriteProgress = .now }
                        outboundStart += written
                        if outboundStart == outbound.count {
                            outbound.removeAll(keepingCapacity: true)
                            outboundStart = 0
                        } else if outboundStart >= Self.outboundChunk {
                            outbound.removeFirst(outboundStart)
                            outboundStart = 0
                        }
                    case .wantsRead, .wantsWrite:
                        return
                    case .closed:
                        close(.network, "the server closed the connection")
                        return
                    }
                }
            } catch {
                // HTTPSFailure's description is its detail.
                close(.network, "the connection failed: \(error)")
            }
        }

        /// nghttp2's text for one of its error codes.
        static func describe(_ code: Int32) -> String { String(cString: nghttp2_strerror(code)) }
    }

    // What nghttp2 reports, applied to the session; reached from the C callbacks.
    extension HTTP2Session {
        /// The stream's response header `name: value` (`:status` included), `size` bytes as RFC
        /// 9113 counts them.
        /// - Returns: false when the response's headers outgrew ``maximumHeaderListSize``: the
        ///   stream is then failed and nghttp2 resets it.
        func received(header name: String, value: String, size: Int, streamID: Int32) -> Bool {
            guard let stream = streams[streamID] else { return true }
            lastProgress = .now
            stream.headerBytes += size
            guard stream.headerBytes <= Self.maximumHeaderListSize else {
                stream.failure = HTTP2Response(
                    transportError: TransportError(
                        .protocolViolation,
                        "the response headers were over \(Self.maximumHeaderListSize) bytes (APNs answers with a few)"))
                stream.headers = [:]
                return false
            }
            if name == ":status" {
                stream.status = Int(value)
            } else if Self.keptHeaders.contains(name) {
                stream.headers[name] = value
            }
            return true
        }

        /// A piece of the stream's response body; past the cap the stream is cancelled.
        func received(body: UnsafeBufferPointer<UInt8>, streamID: Int32) {
            guard let stream = streams[streamID], stream.failure == nil else { return }
            lastProgress = .now
            guard stream.responseBody.count + body.count <= Self.maximumResponseBody else {
                stream.failure = HTTP2Response(
                    transportError: TransportError(
                        .protocolViolation,
                        "the response body was over \(Self.maximumResponseBody) bytes (APNs answers are small)"),
                    permanent: true)
                stream.responseBody = []
                nghttp2_submit_rst_stream(session, 0, streamID, NGHTTP2_CANCEL.rawValue)
                return
            }
            stream.responseBody.append(contentsOf: body)
        }

        /// The stream ended, answered or not.
        func closed(streamID: Int32, errorCode: UInt32) {
            guard let stream = streams.removeValue(forKey: streamID) else { return }
            lastProgress = .now
            finished.append((stream.requestID, stream.response(closedWith: errorCode)))
            if streams.isEmpty { idleSince = .now }
        }

        /// A frame arrived: SETTINGS make the connection usable, GOAWAY retires it, a PING's ACK
        /// proves the peer alive.
        func received(frameType: UInt8, flags: UInt8) {
            let acknowledgement = flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
            if frameType == UInt8(NGHTTP2_SETTINGS.rawValue) && !acknowledgement {
                settingsReceived = true
            } else if frameType == UInt8(NGHTTP2_GOAWAY.rawValue) {
                goAwayReceived = true
            } else if frameType == UInt8(NGHTTP2_PING.rawValue) && acknowledgement && pingSentAt != nil {
                pingSentAt = nil
                lastProgress = .now
            }
        }

        /// A frame went out: a stream's HEADERS mean its request started.
        func sent(frameType: UInt8, streamID: Int32) {
            if frameType == UInt8(NGHTTP2_HEADERS.rawValue) { streams[streamID]?.started = true }
        }

        /// nghttp2 reported what is wrong (a frame it refused, a protocol error it will end the
        /// session for); kept for the reason the connection's failure gives.
        func reportedError(_ message: String) { lastLibraryError = message }
    }

    /// Header fields laid out once in one buffer, as the `nghttp2_nv` array nghttp2 copies.
    private struct HeaderBlock {
        private var bytes: [UInt8] = []
        private var spans: [(name: Range<Int>, value: Range<Int>)] = []

        init(_ fields: [(name: String, value: String)]) {
            for field in fields {
                let nameStart = bytes.count
                bytes += field.name.utf8
                let valueStart = bytes.count
                bytes += field.value.utf8
                spans.append((nameStart..<valueStart, valueStart..<bytes.count))
            }
        }

        /// Calls `body` with the fields as `nghttp2_nv`s, valid only during the call.
        func withFields<Result>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> Result) -> Result {
            var bytes = bytes
            return bytes.withUnsafeMutableBufferPointer { buffer in
                let base = buffer.baseAddress ?? UnsafeMutablePointer<UInt8>(bitPattern: 1).unsafelyUnwrapped
                let fields = spans.map { span in
                    nghttp2_nv(
                        name: base + span.name.lowerBound, value: base + span.value.lowerBound,
                        namelen: span.name.count, valuelen: span.value.count,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                }
                return fields.withUnsafeBufferPointer { body($0.baseAddress.unsafelyUnwrapped, $0.count) }
            }
        }
    }
#endif
