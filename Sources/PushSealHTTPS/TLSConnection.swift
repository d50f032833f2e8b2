#if canImport(CLibSSL)
    internal import CLibSSL
    import PushSealURL
    import Glibc

    /// The TLS client settings one transfer shares across its redirects: TLS 1.2 or later, the
    /// peer's certificate verified against the system's roots or the given file, HTTP/1.1 by ALPN.
    final class TLSContext {
        let context: OpaquePointer

        /// - Parameter caFile: certificates to trust instead of the system's (a test server's).
        init(caFile: String?) throws(HTTPSFailure) {
            guard let context = SSL_CTX_new(TLS_client_method()) else {
                throw HTTPSFailure(.unreachable, "OpenSSL cannot make a TLS context: \(TLSContext.lastError())")
            }
            self.context = context
            guard CLibSSL_configure_client(context) == 1 else {
                throw HTTPSFailure(.unreachable, "OpenSSL refused TLS 1.2 as the minimum: \(TLSContext.lastError())")
            }
            let loaded =
                if let caFile { SSL_CTX_load_verify_file(context, caFile) } else {
                    SSL_CTX_set_default_verify_paths(context)
                }
            guard loaded == 1 else {
                throw HTTPSFailure(
                    .unreachable,
                    "cannot load the certificates to trust (\(caFile ?? "the system's")): \(TLSContext.lastError())")
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            let protocols: [UInt8] = [8] + Array("http/1.1".utf8)
            guard SSL_CTX_set_alpn_protos(context, protocols, UInt32(protocols.count)) == 0 else {
                throw HTTPSFailure(.unreachable, "OpenSSL refused the ALPN list")
            }
        }

        deinit { SSL_CTX_free(context) }

        /// OpenSSL's oldest queued error, as text, and the queue emptied.
        static func lastError() -> String {
            let code = ERR_get_error()
            ERR_clear_error()
            guard code != 0 else { return "no detail" }
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// One verified TLS connection to a URL's host: a non-blocking socket under OpenSSL, every
    /// wait bounded by the transfer's deadline. Closed when released.
    final class TLSConnection {
        private let socket: Int32
        private let connection: OpaquePointer
        private let wait: TransferWait

        private init(socket: Int32, connection: OpaquePointer, wait: TransferWait) {
            self.socket = socket
            self.connection = connection
            self.wait = wait
        }

        deinit {
            SSL_free(connection)
            close(socket)
        }

        /// Connects to `url`'s host and completes a handshake whose certificate names that host.
        /// Local addresses are dropped unless `allowLocal`; a host left with none is refused.
        static func open(
            to url: HTTPSURL, context: TLSContext, allowLocal: Bool, wait: TransferWait
        ) throws(HTTPSFailure) -> TLSConnection {
            let resolved = try HostResolver.addresses(of: url.host, port: url.port, wait: wait)
            let addresses = allowLocal ? resolved : resolved.filter { !$0.isLocal }
            guard !addresses.isEmpty else {
                let listed = resolved.map { $0.numericText ?? "an address" }.joined(separator: ", ")
                throw HTTPSFailure(
                    .localDestination,
                    "\(url.host) resolves only to local addresses (\(listed)), which media downloads never reach")
            }
            let socket = try SocketConnector.connect(to: addresses, naming: url.authority, wait: wait)
            guard let connection = SSL_new(context.context) else {
                close(socket)
                throw HTTPSFailure(.unreachable, "OpenSSL cannot make a connection: \(TLSContext.lastError())")
            }
            let tls = TLSConnection(socket: socket, connection: connection, wait: wait)
            try tls.handshake(with: url)
            return tls
        }

        /// The peer address of the socket, as text.
        private func connectedAddress() throws(HTTPSFailure) -> String {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let read = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &length) }
            }
            let peer = withUnsafeBytes(of: storage) {
                HostResolver.Address(family: Int32(storage.ss_family), bytes: Array($0.prefix(Int(length))))
            }
            guard read == 0, let text = peer.numericText else {
                throw HTTPSFailure(.unreachable, "cannot read the connected address")
            }
            return text
        }

        /// The TLS handshake, with the host checked against the certificate (its name, or its
        /// address for an IP literal) and the name sent by SNI.
        private func handshake(with url: HTTPSURL) throws(HTTPSFailure) {
            guard SSL_set_fd(connection, socket) == 1 else {
                throw HTTPSFailure(.unreachable, "OpenSSL cannot use the socket: \(TLSContext.lastError())")
            }
            // For an IP literal, the certificate is checked against the address the socket is
            // connected to, as the system printed it, never against the URL's spelling of it.
            let named =
                url.hostIsAddress
                ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(connection), try connectedAddress())
                : (SSL_set1_host(connection, url.host) == 1 ? CLibSSL_set_server_name(connection, url.host) : 0)
            guard named == 1 else {
                throw HTTPSFailure(.unreachable, "OpenSSL cannot check the certificate against \(url.host)")
            }
            try perform("the TLS handshake with \(url.authority)") { SSL_connect($0) }
            let verification = SSL_get_verify_result(connection)
            guard verification == X509_V_OK else {
                let reason = String(cString: X509_verify_cert_error_string(verification))
                throw HTTPSFailure(.unreachable, "the certificate of \(url.authority) is not trusted: \(reason)")
            }
        }

        /// Sends all of `bytes`.
        func write(_ bytes: [UInt8]) throws(HTTPSFailure) {
            var offset = 0
            while offset < bytes.count {
                var written = 0
                try perform("sending the request") { connection in
                    bytes.withUnsafeBytes {
                        SSL_write_ex(connection, $0.baseAddress.map { $0 + offset }, $0.count - offset, &written)
                    }
                }
                offset += written
            }
        }

        /// Reads what has arrived into `buffer`, waiting for at least one byte.
        /// - Returns: how many bytes were read; 0 when the server has closed the connection.
        func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPSFailure) -> Int {
            var count = 0
            let open = try perform("reading the response") { SSL_read_ex($0, buffer.baseAddress, buffer.count, &count) }
            return open ? count : 0
        }

        /// Runs `operation` until it succeeds, waiting on the socket as OpenSSL asks.
        /// - Returns: false if the peer closed the connection.
        @discardableResult
        private func perform(_ what: String, _ operation: (OpaquePointer) -> Int32) throws(HTTPSFailure) -> Bool {
            while true {
                try wait.check()
                ERR_clear_error()
                errno = 0
                let result = BrokenPipeGuard.run { operation(connection) }
                if result == 1 { return true }
                switch SSL_get_error(connection, result) {
                case SSL_ERROR_WANT_READ: try wait.poll(socket, for: Int16(POLLIN))
                case SSL_ERROR_WANT_WRITE: try wait.poll(socket, for: Int16(POLLOUT))
                case SSL_ERROR_ZERO_RETURN: return false
                case SSL_ERROR_SYSCALL where ERR_peek_error() == 0 && errno == 0: return false
                case SSL_ERROR_SSL where SSL_get_verify_result(connection) != X509_V_OK:
                    let reason = String(cString: X509_verify_cert_error_string(SSL_get_verify_result(connection)))
                    ERR_clear_error()
                    throw HTTPSFailure(.unreachable, "\(what) failed: the certificate is not trusted: \(reason)")
                default:
                    throw HTTPSFailure(.unreachable, "\(what) failed: \(TLSContext.lastError())")
                }
            }
        }
    }
#endif
