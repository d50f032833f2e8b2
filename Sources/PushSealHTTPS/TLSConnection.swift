#if canImport(CLibSSL)
    internal import CLibSSL
    package import PushSealURL
    import Glibc

    /// TLS client settings shared by the connections made with them: TLS 1.2 or later, the peer's
    /// certificate verified against the system's roots or the given file, the application
    /// protocols offered by ALPN (`http/1.1` for media downloads, `h2` for APNs).
    package final class TLSContext {
        let context: OpaquePointer

        /// - Parameters:
        ///   - caFile: certificates to trust instead of the system's (a test server's).
        ///   - protocols: the ALPN protocol names offered, most preferred first.
        package init(caFile: String?, protocols: [String] = ["http/1.1"]) throws(HTTPSFailure) {
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
                    .untrusted,
                    "cannot load the certificates to trust (\(caFile ?? "the system's")): \(TLSContext.lastError())")
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            let wire = protocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
            guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
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

    /// One verified TLS connection to a URL's host: a non-blocking socket under OpenSSL. Used
    /// either blocking, every wait bounded by the transfer's deadline (``write(_:)``,
    /// ``read(into:)``), or driven by the caller's own poll loop (``readAvailable(into:)``,
    /// ``writeAvailable(_:)``). Closed when released.
    package final class TLSConnection {
        private let socket: Int32
        private let connection: OpaquePointer
        /// The deadline every blocking read and write keeps: the open's, until a kept-alive
        /// connection's next exchange sets its own.
        var wait: TransferWait

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
        package static func open(
            to url: HTTPSURL, context: TLSContext, allowLocal: Bool, wait: TransferWait
        ) throws(HTTPSFailure) -> TLSConnection {
            let resolved = try HostResolver.addresses(of: url.host, port: url.port, wait: wait)
            let addresses = allowLocal ? resolved : resolved.filter { !$0.isLocal }
            guard !addresses.isEmpty else {
                let listed = resolved.map { $0.numericText ?? "an address" }.joined(separator: ", ")
                throw HTTPSFailure(
                    .localDestination,
                    "\(url.host) resolves only to local addresses (\(listed)), which media downloads and push endpoints never reach"
                )
            }
            let socket = try SocketConnector.connect(to: addresses, naming: url.authority, wait: wait)
            guard let connection = SSL_new(context.context) else {
                close(socket)
                throw HTTPSFailure(.unreachable, "OpenSSL cannot make a connection: \(TLSContext.lastError())")
            }
            CLibSSL_allow_partial_writes(connection)
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
                throw HTTPSFailure(.untrusted, "the certificate of \(url.authority) is not trusted: \(reason)")
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
            bytesRead += open ? count : 0
            return open ? count : 0
        }

        /// The application bytes read so far, over the connection's life.
        private(set) var bytesRead = 0

        /// Whether an idle kept-alive connection can carry another request: the peer has neither
        /// closed it (nor reset it) nor sent anything unasked since the last answer. Reads without
        /// waiting, so TLS records that carry no data (a session ticket) are consumed on the way.
        func isOpenAndIdle() -> Bool {
            var byte: UInt8 = 0
            var count = 0
            let outcome = try? withUnsafeMutablePointer(to: &byte) { pointer in
                try attempt("checking the idle connection") { SSL_read_ex($0, pointer, 1, &count) }
            }
            return outcome == .wantsRead
        }

        /// Runs `operation` until it succeeds, waiting on the socket as OpenSSL asks.
        /// - Returns: false if the peer closed the connection.
        @discardableResult
        private func perform(_ what: String, _ operation: (OpaquePointer) -> Int32) throws(HTTPSFailure) -> Bool {
            while true {
                try wait.check()
                switch try attempt(what, operation) {
                case .done: return true
                case .closed: return false
                case .wantsRead: try wait.poll(socket, for: Int16(POLLIN))
                case .wantsWrite: try wait.poll(socket, for: Int16(POLLOUT))
                }
            }
        }

        /// What one try of a TLS operation came to.
        package enum Attempt: Equatable {
            /// It succeeded.
            case done
            /// The peer closed the connection.
            case closed
            /// It can go on once the socket is readable.
            case wantsRead
            /// It can go on once the socket is writable.
            case wantsWrite
        }

        /// Tries `operation` once, without waiting; with SIGPIPE held off around it unless the
        /// caller already holds it off (`guarded` false).
        private func attempt(
            _ what: String, guarded: Bool = true, _ operation: (OpaquePointer) -> Int32
        ) throws(HTTPSFailure) -> Attempt {
            ERR_clear_error()
            errno = 0
            let result = guarded ? BrokenPipeGuard.run { operation(connection) } : operation(connection)
            if result == 1 { return .done }
            switch SSL_get_error(connection, result) {
            case SSL_ERROR_WANT_READ: return .wantsRead
            case SSL_ERROR_WANT_WRITE: return .wantsWrite
            case SSL_ERROR_ZERO_RETURN: return .closed
            case SSL_ERROR_SYSCALL where ERR_peek_error() == 0 && errno == 0: return .closed
            case SSL_ERROR_SSL where SSL_get_verify_result(connection) != X509_V_OK:
                let reason = String(cString: X509_verify_cert_error_string(SSL_get_verify_result(connection)))
                ERR_clear_error()
                throw HTTPSFailure(.untrusted, "\(what) failed: the certificate is not trusted: \(reason)")
            case SSL_ERROR_SYSCALL where errno != 0:
                throw HTTPSFailure(.unreachable, "\(what) failed: \(String(cString: strerror(errno)))")
            default:
                throw HTTPSFailure(.unreachable, "\(what) failed: \(TLSContext.lastError())")
            }
        }

        /// The socket, for the caller's own `poll`.
        package var descriptor: Int32 { socket }

        /// The application protocol the server chose by ALPN (`h2`, `http/1.1`), or nil when it chose none.
        package var negotiatedProtocol: String? {
            var name: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            SSL_get0_alpn_selected(connection, &name, &length)
            guard let name, length > 0 else { return nil }
            return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
        }

        /// Reads what has arrived into `buffer`, without waiting. The caller holds SIGPIPE off
        /// around its loop (``BrokenPipeGuard/run(_:)``): a read may write (a TLS alert, a key update).
        /// - Returns: `done` with the byte count, or why nothing was read.
        package func readAvailable(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPSFailure) -> (Attempt, Int) {
            var count = 0
            let outcome = try attempt("reading", guarded: false) {
                SSL_read_ex($0, buffer.baseAddress, buffer.count, &count)
            }
            return (outcome, outcome == .done ? count : 0)
        }

        /// Writes as much of `bytes` as the socket takes now, without waiting. The caller holds
        /// SIGPIPE off around its loop (``BrokenPipeGuard/run(_:)``).
        /// - Returns: `done` with the byte count written (perhaps fewer than given), or why none was.
        ///   After `wantsRead` or `wantsWrite`, the next call must pass the same bytes again first.
        package func writeAvailable(_ bytes: UnsafeRawBufferPointer) throws(HTTPSFailure) -> (Attempt, Int) {
            var count = 0
            let outcome = try attempt("writing", guarded: false) {
                SSL_write_ex($0, bytes.baseAddress, bytes.count, &count)
            }
            return (outcome, outcome == .done ? count : 0)
        }
    }
#endif
