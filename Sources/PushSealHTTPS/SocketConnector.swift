#if canImport(CLibSSL)
    import Glibc

    /// TCP connections, without Nagle's delay, to a host's addresses, tried in the resolver's
    /// order, each for at most ``attemptLimit`` so that one unreachable address (a blackholed IPv6
    /// route, say) cannot take the whole deadline before the next is tried.
    package enum SocketConnector {
        /// The longest one address is tried while the deadline allows more.
        package static let attemptLimit = Duration.seconds(3)

        /// A non-blocking socket connected to the first of `addresses` that accepts.
        /// - Parameters:
        ///   - addresses: where to connect, in order.
        ///   - authority: the host and port, for messages.
        ///   - wait: the transfer's deadline and cancellation.
        /// - Throws: `timeout` when the deadline passes, `unreachable` when no address accepts.
        package static func connect(
            to addresses: [HostResolver.Address], naming authority: String, wait: TransferWait
        ) throws(HTTPSFailure) -> Int32 {
            var reason = "no address"
            for address in addresses {
                try wait.check()
                let socket = Glibc.socket(
                    address.family,
                    Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                guard socket >= 0 else { continue }
                // No Nagle delay: a request is written whole, and an HTTP/2 client's small frames
                // (a few requests, a WINDOW_UPDATE) must not wait for the previous write's ACK.
                var noDelay: Int32 = 1
                _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
                do {
                    try attempt(socket, address, wait: wait.limited(to: attemptLimit))
                    return socket
                } catch {
                    close(socket)
                    reason = error.kind == .timeout ? "no answer in \(attemptLimit)" : error.detail
                }
            }
            try wait.check()
            throw HTTPSFailure(.unreachable, "cannot connect to \(authority): \(reason)")
        }

        /// One connection attempt on `socket`, until it succeeds, fails or `wait` ends.
        private static func attempt(
            _ socket: Int32, _ address: HostResolver.Address, wait: TransferWait
        ) throws(HTTPSFailure) {
            let started = address.bytes.withUnsafeBytes { bytes in
                bytes.baseAddress.map {
                    Glibc.connect(socket, $0.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
                } ?? -1
            }
            guard started == 0 || errno == EINPROGRESS else {
                throw HTTPSFailure(.unreachable, String(cString: strerror(errno)))
            }
            try wait.poll(socket, for: Int16(POLLOUT))
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 else {
                throw HTTPSFailure(.unreachable, String(cString: strerror(error)))
            }
        }
    }
#endif
