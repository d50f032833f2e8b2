internal import PushSealCore

// nghttp2 over PushSealHTTPS's TLS is the transport on Linux; on Apple platforms the package links
// no C library, so this type reports that `pushseal send` is not available there (deliver with
// URLSession instead).
#if canImport(CNGHTTP2)
    internal import PushSealHTTPS
    internal import PushSealURL
    import Glibc

    /// Requests to one origin multiplexed as HTTP/2 streams, over one connection at a time.
    ///
    /// The connection is made on the first request and again whenever the current one cannot take
    /// more: after a GOAWAY the old connection finishes the streams the server accepted while new
    /// requests go to a new one, and the streams the server refused come back as `unprocessed`
    /// for the caller to send again. How many streams may be open is the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS (``hasRoom``); how many bytes may be in flight is nghttp2's
    /// business, from the windows the server grants. A connection that lets no waiting request
    /// start within the answer timeout (a stream limit of 0, or one lowered to 0) is failing: it is
    /// given up, and the requests posted in the next ``reconnectPause`` fail at once. Used from one
    /// thread.
    final class HTTP2Client {
        /// How long making a connection may take: TCP, TLS and the server's SETTINGS.
        static let connectTimeout = Duration.seconds(10)
        /// After a failed connect, requests fail at once with its error for this long, so that an
        /// unreachable host costs one timeout per round of retries, not one per request.
        static let reconnectPause = Duration.seconds(1)
        /// A connection left idle this long is replaced rather than reused: a middlebox may have
        /// dropped it without a word.
        static let idleReuseLimit = Duration.seconds(60)

        private let origin: HTTPSURL
        private let context: TLSContext
        /// Whether the origin may resolve to a loopback or local-network address.
        private let allowsLocalDestinations: Bool
        /// How long a request may wait for its answer, and a waiting request for a stream.
        private let answerTimeout: Duration
        /// Since when requests have waited for a stream on the current connection while none
        /// started.
        private var waitingForRoomSince: ContinuousClock.Instant?
        private var current: HTTP2Session?
        /// Connections going away: polled until their accepted streams have ended.
        private var retiring: [HTTP2Session] = []
        /// Requests that finished without reaching a connection.
        private var unsent: [(id: Int, response: HTTP2Response)] = []
        private var lastConnectFailure: (at: ContinuousClock.Instant, failure: HTTP2Session.ConnectFailure)?

        /// A client for `baseURL` (`https://host[:port]`); `caFile` replaces the system's trusted
        /// certificates (a mock server's self-signed certificate, in tests); a request waits
        /// `answerTimeout` at most for its answer. Without `allowsLocalDestinations`, addresses that
        /// are loopback, private, link-local or unique-local are dropped as each connection resolves
        /// the host (an origin a stranger chose, such as a Web Push endpoint); a configured APNs
        /// host allows them.
        ///
        /// With `offeringHTTP1`, ALPN offers `http/1.1` after `h2`, so that a server without HTTP/2
        /// says so (its requests then fail with ``HTTP2Response/serverLacksHTTP2``) rather than
        /// failing the handshake.
        init(
            baseURL: String, caFile: String?, answerTimeout: Duration, allowsLocalDestinations: Bool = true,
            offeringHTTP1: Bool = false
        ) throws {
            self.answerTimeout = answerTimeout
            self.allowsLocalDestinations = allowsLocalDestinations
            do {
                origin = try HTTPSURL(baseURL)
            } catch {
                throw DeliveryError("the host \(baseURL) is not usable: \(error.detail)")
            }
            do {
                context = try TLSContext(caFile: caFile, protocols: offeringHTTP1 ? ["h2", "http/1.1"] : ["h2"])
            } catch {
                throw DeliveryError(error.detail)
            }
        }

        deinit {
            BrokenPipeGuard.run {
                current?.shutdown()
                for session in retiring { session.shutdown() }
            }
        }

        /// Whether a request posted now would start at once: the connection has a free stream, or
        /// there is no usable connection yet (posting makes one).
        var hasRoom: Bool {
            guard let current, current.acceptsRequests else { return true }
            return current.hasRoom
        }

        /// Starts `POST path` with `headers` and `body`; its response comes back from
        /// ``poll(timeoutMilliseconds:)`` with `id`.
        func post(id: Int, path: String, headers: [(name: String, value: String)], body: [UInt8]) {
            let submitted = BrokenPipeGuard.run {
                usableSession()?.submit(id: id, path: path, headers: headers, body: body) ?? false
            }
            if submitted {
                // A request started: whatever waits now has waited from here.
                waitingForRoomSince = nil
                return
            }
            let failure = lastConnectFailure?.failure
            var response = HTTP2Response(
                transportError: failure?.error
                    ?? TransportError(.network, "no HTTP/2 connection could take the request"),
                permanent: failure?.permanent ?? false)
            response.serverLacksHTTP2 = failure?.lacksHTTP2 ?? false
            unsent.append((id, response))
        }

        /// The current connection if it takes requests, else a new one (the old one retires).
        private func usableSession() -> HTTP2Session? {
            if let session = current {
                // Take in what arrived while nobody polled: a GOAWAY, or the close of an idle connection.
                if session.openStreamCount == 0 {
                    session.service()
                    if ContinuousClock.now - session.idleSince > Self.idleReuseLimit { session.shutdown() }
                }
                if session.acceptsRequests { return session }
                retire(session)
                current = nil
            }
            if let last = lastConnectFailure, ContinuousClock.now - last.at < Self.reconnectPause { return nil }
            do {
                let session = try HTTP2Session.connect(
                    to: origin, context: context, allowsLocalDestinations: allowsLocalDestinations,
                    timeout: Self.connectTimeout, answerTimeout: answerTimeout)
                current = session
                lastConnectFailure = nil
                return session
            } catch {
                lastConnectFailure = (.now, error)
                return nil
            }
        }

        private func retire(_ session: HTTP2Session) {
            unsent += session.takeFinished()
            if !session.isDone { retiring.append(session) }
        }

        /// Moves the connections along and returns the requests that finished, waiting at most
        /// `timeoutMilliseconds` for the network, and only when none has finished yet.
        /// `waitingForRoom` says that requests wait to be posted while ``hasRoom`` is false. A raised
        /// `wake` ends the wait too (and is cleared), with nothing finished.
        func poll(
            timeoutMilliseconds: Int, waitingForRoom: Bool, wake: InputWake? = nil
        ) -> [(id: Int, response: HTTP2Response)] {
            // SIGPIPE held off once per round rather than around each TLS read and write.
            BrokenPipeGuard.run {
                giveUpIfNothingStarts(waiting: waitingForRoom)
                return drive(timeoutMilliseconds: timeoutMilliseconds, wake: wake)
            }
        }

        /// Gives up the current connection once requests have waited ``answerTimeout`` for a
        /// stream it would not open, as a failed connect: the requests posted in the next
        /// ``reconnectPause`` fail at once, instead of each waiting its turn on a peer that lets
        /// none start.
        private func giveUpIfNothingStarts(waiting: Bool) {
            guard waiting, let session = current, session.acceptsRequests, !session.hasRoom else {
                waitingForRoomSince = nil
                return
            }
            let now = ContinuousClock.now
            guard let since = waitingForRoomSince else {
                waitingForRoomSince = now
                return
            }
            guard now - since > answerTimeout else { return }
            let reason = HTTP2Session.noStreamReason(after: answerTimeout, limit: session.maximumConcurrentStreams)
            session.close(.timeout, reason)
            retire(session)
            current = nil
            waitingForRoomSince = nil
            lastConnectFailure = (
                now, HTTP2Session.ConnectFailure(error: TransportError(.timeout, reason), permanent: false)
            )
        }

        private func drive(timeoutMilliseconds: Int, wake: InputWake?) -> [(id: Int, response: HTTP2Response)] {
            var sessions = retiring
            if let current { sessions.append(current) }
            let now = ContinuousClock.now
            for session in sessions {
                session.flush()
                session.checkTimers(now: now)
            }
            let finished = collect(sessions)
            guard finished.isEmpty else { return finished }
            // With no connection (every job waits for its retry) this only sleeps.
            var entries = sessions.map { pollfd(fd: $0.descriptor, events: $0.pollEvents, revents: 0) }
            if let wake { entries.append(pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)) }
            let ready = Glibc.poll(&entries, nfds_t(entries.count), Int32(timeoutMilliseconds))
            guard ready > 0 else { return finished }
            if let wake, entries[sessions.count].revents != 0 { wake.clear() }
            for (session, entry) in zip(sessions, entries) where entry.revents != 0 { session.service() }
            return collect(sessions)
        }

        /// What finished on `sessions` and without one; drops the connections that are done.
        private func collect(_ sessions: [HTTP2Session]) -> [(id: Int, response: HTTP2Response)] {
            var finished = unsent
            unsent.removeAll()
            for session in sessions { finished += session.takeFinished() }
            retiring.removeAll { $0.isDone }
            if let session = current, session.closedReason != nil { current = nil }
            return finished
        }
    }
#else
    /// On Apple platforms: no nghttp2, so no connection can be made (see the top of this file).
    final class HTTP2Client {
        init(
            baseURL: String, caFile: String?, answerTimeout: Duration, allowsLocalDestinations: Bool = true,
            offeringHTTP1: Bool = false
        ) throws {
            throw DeliveryError(
                "the HTTP/2 transport of APNsClient and WebPushClient is nghttp2 over OpenSSL, on Linux; on Apple platforms use URLSession"
            )
        }

        var hasRoom: Bool { false }

        func post(id: Int, path: String, headers: [(name: String, value: String)], body: [UInt8]) {}

        func poll(
            timeoutMilliseconds: Int, waitingForRoom: Bool, wake: InputWake? = nil
        ) -> [(id: Int, response: HTTP2Response)] { [] }
    }
#endif
