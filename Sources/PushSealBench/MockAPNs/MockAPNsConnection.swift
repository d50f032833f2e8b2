#if canImport(CNGHTTP2) && canImport(CLibSSL)
    internal import CNGHTTP2
    internal import CLibSSL
    import Glibc

    /// One client connection of ``FastMockAPNs``: TLS by libssl on a non-blocking socket, HTTP/2
    /// by an nghttp2 server session. It reads what arrives, tells the server each request that
    /// ended (and which scripted answer its token chose), submits the answers the server hands
    /// back when they are due, and writes what nghttp2 produced.
    final class MockAPNsConnection {
        /// The socket, for the server's poll.
        let descriptor: Int32
        /// Set once the connection failed or the client left; the server then drops it.
        private(set) var isClosed = false
        private let tls: OpaquePointer
        private var session: OpaquePointer?
        private unowned let server: FastMockAPNs
        private var outbound: [UInt8] = []
        private var outboundStart = 0
        /// Per open stream: the answer its `:path` chose, whether it carried a provider token, and
        /// the `apns-id` it named, which the answer repeats as APNs does.
        private var requests: [Int32: (answer: Int, authorized: Bool, apnsID: String?)] = [:]
        /// Error bodies being sent, by stream.
        private var bodies: [Int32: [UInt8]] = [:]
        /// Request bodies being received, by stream, while the server wants them kept.
        private var requestBodies: [Int32: [UInt8]] = [:]

        /// Takes over an accepted socket; nil when libssl or nghttp2 cannot set it up.
        init?(descriptor: Int32, context: OpaquePointer, server: FastMockAPNs, maximumConcurrentStreams: Int) {
            guard let tls = SSL_new(context) else { return nil }
            self.descriptor = descriptor
            self.tls = tls
            self.server = server
            SSL_set_fd(tls, descriptor)
            SSL_set_accept_state(tls)
            CLibSSL_allow_partial_writes(tls)
            var callbacks: OpaquePointer?
            guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return nil }
            defer { nghttp2_session_callbacks_del(callbacks) }
            nghttp2_session_callbacks_set_on_header_callback(callbacks, Self.onHeader)
            nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, Self.onFrame)
            nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, Self.onStreamClose)
            nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, Self.onDataChunk)
            let me = Unmanaged.passUnretained(self).toOpaque()
            guard nghttp2_session_server_new(&session, callbacks, me) == 0, let session else { return nil }
            var settings = [
                nghttp2_settings_entry(
                    settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                    value: UInt32(maximumConcurrentStreams)),
                nghttp2_settings_entry(
                    settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
            ]
            guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0
            else { return nil }
        }

        deinit {
            nghttp2_session_del(session)
            SSL_free(tls)
            close(descriptor)
        }

        /// Input always; output while bytes wait for the socket.
        var pollEvents: Int16 { Int16(POLLIN) | (outbound.count > outboundStart ? Int16(POLLOUT) : 0) }

        /// Reads everything the socket holds into nghttp2, through `buffer`.
        func readAvailable(into buffer: UnsafeMutableRawBufferPointer) {
            while !isClosed {
                var count = 0
                guard SSL_read_ex(tls, buffer.baseAddress, buffer.count, &count) == 1 else {
                    let error = SSL_get_error(tls, 0)
                    if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE { isClosed = true }
                    ERR_clear_error()
                    return
                }
                let bytes = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
                if nghttp2_session_mem_recv(session, bytes, count) < 0 { isClosed = true }
            }
        }

        /// Answers stream `streamID` as its scripted answer says (an unauthorized request gets 403
        /// `MissingProviderToken` instead), with the `apns-id` the request named, or else `apnsID`;
        /// a stream the client already reset is skipped.
        func answer(streamID: Int32, with answer: ScriptedAnswer, apnsID: String, at milliseconds: Int64) {
            guard !isClosed, let request = requests[streamID] else { return }
            var status = answer.status
            var body = answer.body(at: milliseconds)
            if !request.authorized {
                status = 403
                body = Array(#"{"reason":"MissingProviderToken"}"#.utf8)
            }
            var fields: [(String, String)] = [(":status", String(status)), ("apns-id", request.apnsID ?? apnsID)]
            if !body.isEmpty {
                fields.append(("content-type", "application/json"))
                fields.append(("content-length", String(body.count)))
                bodies[streamID] = body
            }
            var bytes: [UInt8] = []
            var spans: [(Range<Int>, Range<Int>)] = []
            for (name, value) in fields {
                let nameStart = bytes.count
                bytes += name.utf8
                let valueStart = bytes.count
                bytes += value.utf8
                spans.append((nameStart..<valueStart, valueStart..<bytes.count))
            }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: Unmanaged.passUnretained(self).toOpaque()),
                read_callback: Self.readBody)
            bytes.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                let headers = spans.map { name, value in
                    nghttp2_nv(
                        name: base + name.lowerBound, value: base + value.lowerBound, namelen: name.count,
                        valuelen: value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                }
                if body.isEmpty {
                    _ = nghttp2_submit_response(session, streamID, headers, headers.count, nil)
                } else {
                    _ = nghttp2_submit_response(session, streamID, headers, headers.count, &provider)
                }
            }
        }

        /// Moves nghttp2's output to the socket, as much as it takes without waiting.
        func flush() {
            while !isClosed {
                while outbound.count - outboundStart < 65_536 {
                    var data: UnsafePointer<UInt8>?
                    let count = nghttp2_session_mem_send(session, &data)
                    guard count >= 0 else {
                        isClosed = true
                        return
                    }
                    guard count > 0, let data else { break }
                    outbound.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
                }
                guard outbound.count > outboundStart else {
                    if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
                        isClosed = true
                    }
                    return
                }
                var written = 0
                let wrote = outbound.withUnsafeBytes { bytes in
                    SSL_write_ex(
                        tls, bytes.baseAddress.map { $0 + outboundStart }, bytes.count - outboundStart, &written)
                }
                guard wrote == 1 else {
                    let error = SSL_get_error(tls, 0)
                    if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE { isClosed = true }
                    ERR_clear_error()
                    return
                }
                outboundStart += written
                if outboundStart == outbound.count {
                    outbound.removeAll(keepingCapacity: true)
                    outboundStart = 0
                }
            }
        }

        // MARK: nghttp2's callbacks

        private static func connection(_ userData: UnsafeMutableRawPointer?) -> MockAPNsConnection? {
            userData.map { Unmanaged<MockAPNsConnection>.fromOpaque($0).takeUnretainedValue() }
        }

        private static let onHeader: nghttp2_on_header_callback = {
            _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let name, let value, let connection = connection(userData) else { return 0 }
            let streamID = frame.pointee.hd.stream_id
            let nameBytes = UnsafeBufferPointer(start: name, count: nameLength)
            let valueBytes = UnsafeBufferPointer(start: value, count: valueLength)
            var request = connection.requests[streamID] ?? (0, false, nil)
            if connection.requests[streamID] == nil { connection.server.streamOpened() }
            if nameBytes.elementsEqual(":path".utf8) {
                let prefix = "/3/device/".utf8
                if valueLength > prefix.count, valueBytes.prefix(prefix.count).elementsEqual(prefix) {
                    request.answer = connection.server.answerIndex(
                        forToken: UnsafeBufferPointer(rebasing: valueBytes[prefix.count...]))
                }
            } else if nameBytes.elementsEqual("authorization".utf8) {
                request.authorized = valueBytes.starts(with: "bearer ey".utf8)
            } else if nameBytes.elementsEqual("apns-id".utf8) {
                request.apnsID = String(decoding: valueBytes, as: UTF8.self)
            }
            connection.requests[streamID] = request
            return 0
        }

        private static let onFrame: nghttp2_on_frame_recv_callback = { _, frame, userData in
            guard let frame, let connection = connection(userData) else { return 0 }
            let header = frame.pointee.hd
            let endsStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            let carriesRequest =
                header.type == UInt8(NGHTTP2_HEADERS.rawValue) || header.type == UInt8(NGHTTP2_DATA.rawValue)
            if endsStream && carriesRequest, let request = connection.requests[header.stream_id] {
                if let body = connection.requestBodies.removeValue(forKey: header.stream_id) {
                    connection.server.keep(body)
                }
                connection.server.requestEnded(on: connection, streamID: header.stream_id, answer: request.answer)
            }
            return 0
        }

        /// Collects a request's body while the server wants bodies kept.
        private static let onDataChunk: nghttp2_on_data_chunk_recv_callback = {
            _, _, streamID, data, length, userData in
            guard let data, let connection = connection(userData), connection.server.bodiesWanted > 0 else { return 0 }
            connection.requestBodies[streamID, default: []].append(
                contentsOf: UnsafeBufferPointer(start: data, count: length))
            return 0
        }

        private static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, _, userData in
            guard let connection = connection(userData) else { return 0 }
            if connection.requests.removeValue(forKey: streamID) != nil { connection.server.streamClosed() }
            connection.bodies[streamID] = nil
            connection.requestBodies[streamID] = nil
            return 0
        }

        /// Copies a stream's whole error body (they are a few dozen bytes) and marks its end.
        private static let readBody: nghttp2_data_source_read_callback = {
            _, streamID, buffer, length, flags, source, _ in
            guard let buffer, let flags, let pointer = source?.pointee.ptr else {
                return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
            }
            let connection = Unmanaged<MockAPNsConnection>.fromOpaque(pointer).takeUnretainedValue()
            let body = connection.bodies[streamID] ?? []
            let count = min(length, body.count)
            body.withUnsafeBufferPointer { if let base = $0.baseAddress { buffer.update(from: base, count: count) } }
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return count
        }
    }
#endif
