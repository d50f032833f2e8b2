#if canImport(CNGHTTP2)
    internal import CNGHTTP2

    /// The C callbacks through which nghttp2 reports to an ``HTTP2Session``: each finds its
    /// session in nghttp2's user data (an unretained pointer the session set to itself) and
    /// hands over what arrived. Returning 0 tells nghttp2 to go on.
    enum HTTP2SessionCallbacks {
        /// Sets every callback the session relies on.
        static func install(in callbacks: OpaquePointer) {
            nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
            nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onData)
            nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
            nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrame)
            nghttp2_session_callbacks_set_error_callback2(callbacks, onError)
            nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onFrameSent)
        }

        /// The session behind nghttp2's user data.
        private static func session(_ userData: UnsafeMutableRawPointer?) -> HTTP2Session? {
            userData.map { Unmanaged<HTTP2Session>.fromOpaque($0).takeUnretainedValue() }
        }

        private static let onHeader: nghttp2_on_header_callback = {
            _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let name, let value, let session = session(userData) else { return 0 }
            let kept = session.received(
                header: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self),
                size: nameLength + valueLength + 32, streamID: frame.pointee.hd.stream_id)
            // This return value makes nghttp2 reset the stream (and only it).
            return kept ? 0 : Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }

        private static let onData: nghttp2_on_data_chunk_recv_callback = {
            _, _, streamID, data, length, userData in
            guard let data, let session = session(userData) else { return 0 }
            session.received(body: UnsafeBufferPointer(start: data, count: length), streamID: streamID)
            return 0
        }

        private static let onStreamClose: nghttp2_on_stream_close_callback = {
            _, streamID, errorCode, userData in
            session(userData)?.closed(streamID: streamID, errorCode: errorCode)
            return 0
        }

        private static let onFrame: nghttp2_on_frame_recv_callback = { _, frame, userData in
            guard let frame else { return 0 }
            session(userData)?.received(frameType: frame.pointee.hd.type, flags: frame.pointee.hd.flags)
            return 0
        }

        private static let onFrameSent: nghttp2_on_frame_send_callback = { _, frame, userData in
            guard let frame else { return 0 }
            session(userData)?.sent(frameType: frame.pointee.hd.type, streamID: frame.pointee.hd.stream_id)
            return 0
        }

        private static let onError: nghttp2_error_callback2 = { _, _, message, length, userData in
            guard let message, let session = session(userData) else { return 0 }
            session.reportedError(
                String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self))
            return 0
        }

        /// Copies the next part of a request body (the stream nghttp2 was given as its data
        /// source) into nghttp2's buffer, and marks the end once all of it was taken.
        static let readBody: nghttp2_data_source_read_callback = {
            _, _, buffer, length, flags, source, _ in
            guard let buffer, let flags, let pointer = source?.pointee.ptr else {
                return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
            }
            let stream = Unmanaged<HTTP2Stream>.fromOpaque(pointer).takeUnretainedValue()
            let count = min(length, stream.body.count - stream.bodyOffset)
            stream.body.withUnsafeBufferPointer {
                if let base = $0.baseAddress { buffer.update(from: base + stream.bodyOffset, count: count) }
            }
            stream.bodyOffset += count
            if stream.bodyOffset == stream.body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return count
        }
    }
#endif
