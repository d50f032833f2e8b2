#if canImport(CLibSSL)
    import Glibc

    /// The status a local HTTP/1.1 listener answers a GET with, in clear text: what a container's
    /// health check asks of the gateway in the same network namespace (`pushseal-gateway health`),
    /// where no TLS and no proxy stand between them. Only the response head is read.
    package enum LoopbackStatusProbe {
        /// The status `host`:`port` answers `GET path` with, within `timeout`.
        /// - Parameters:
        ///   - host: an IPv4 or IPv6 address (no brackets) or a name.
        ///   - port: the listener's port.
        ///   - path: the request target, beginning with `/`.
        ///   - timeout: for the whole exchange, connecting included.
        /// - Throws: `unreachable` when nothing accepts or the connection breaks, `timeout` when no
        ///   complete head arrives in time, `malformed` when the head does not parse.
        package static func status(host: String, port: Int, path: String, timeout: Duration) throws(HTTPSFailure)
            -> Int
        {
            let wait = TransferWait(deadline: .now + timeout, cancelled: { false })
            let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            let addresses = try HostResolver.addresses(of: host, port: port, wait: wait)
            let socket = try SocketConnector.connect(to: addresses, naming: authority, wait: wait)
            defer { close(socket) }
            let request = Array("GET \(path) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n\r\n".utf8)
            try write(request, to: socket, wait: wait)
            var received = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while HTTPResponseHead.end(in: received) == nil {
                guard received.count <= HTTPResponseHead.maximumByteCount else {
                    throw HTTPSFailure(
                        .malformed, "the response head is over \(HTTPResponseHead.maximumByteCount) bytes")
                }
                try wait.poll(socket, for: Int16(POLLIN))
                let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
                guard count > 0 else {
                    throw HTTPSFailure(.unreachable, "\(authority) closed the connection before a whole answer")
                }
                received += buffer[..<count]
            }
            let end = HTTPResponseHead.end(in: received) ?? received.count
            return try HTTPResponseHead(parsing: received[..<end]).status
        }

        /// Writes all of `bytes` to the non-blocking `socket` (MSG_NOSIGNAL: a reset raises no SIGPIPE).
        private static func write(_ bytes: [UInt8], to socket: Int32, wait: TransferWait) throws(HTTPSFailure) {
            var sent = 0
            while sent < bytes.count {
                try wait.poll(socket, for: Int16(POLLOUT))
                let count = bytes[sent...].withUnsafeBytes {
                    send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
                guard count > 0 else {
                    throw HTTPSFailure(.unreachable, "writing the request failed: \(String(cString: strerror(errno)))")
                }
                sent += count
            }
        }
    }
#endif
