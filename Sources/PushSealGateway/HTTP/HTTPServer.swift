internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// The gateway's HTTP/1.1 server: libmicrohttpd parses and answers every request (no HTTP is
/// written here); this type binds the socket, collects each request's body up to a cap, and hands
/// whole requests to a handler. Each connection has a thread of its own, so a handler that waits
/// on the database never holds up another connection (`/healthz` included).
///
/// Connections are bounded in number (in all, and per client address, by libmicrohttpd) and in
/// time (``ConnectionGuard``: a head and a body must arrive within totals a trickling client
/// cannot stretch, and a crowded server sheds connections that have sent no head).
///
/// TLS is terminated in front (nginx, a load balancer): the server listens on plain HTTP, by
/// default on loopback (gateway-v1.md, "Deployment").
final class HTTPServer: @unchecked Sendable {
    /// Makes the response to one request; called on the server's threads, concurrently.
    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// Why the server could not start.
    struct Failure: Error, CustomStringConvertible {
        /// What went wrong, for the operator.
        let description: String
    }

    /// The port it listens on (the one chosen by the system when asked for port 0).
    let port: UInt16
    private let listener: Int32
    private let handler: Handler
    private let maximumBodyBytes: Int
    private let connectionGuard: ConnectionGuard
    private var daemon: OpaquePointer?

    /// How long a connection may stay silent while its answer is written (the head and body have
    /// totals of their own).
    static let idleSeconds: UInt32 = 30
    /// Connections the kernel may hold completed before the server accepts them.
    static let acceptBacklog: Int32 = 4_096

    /// The connections libmicrohttpd may hold beyond the `connections` the guard shares out: those
    /// the guard closed for room whose threads have not finished closing them. A client that
    /// reopens each connection as it is dropped closes and opens them in waves, and were
    /// libmicrohttpd's own limit `connections`, a new client arriving in a wave would be turned
    /// away by it before the guard could make room. A quarter, at least 32.
    static func closingRoom(for connections: Int) -> Int { max(32, connections / 4) }
    /// The stack of each connection's thread.
    static let threadStackBytes = 1 << 20
    /// Each connection's memory in libmicrohttpd (its default is 32 KiB), where it reads the
    /// request head, and so what bounds it: a head past about 11 KB is answered 414 (a request
    /// line) or 431 (its headers), where nginx's defaults stop at 8 KB a line. No
    /// request of the gateway's comes near it; a head of tens of KB is an attacker's, who makes
    /// the server read far more than it answers.
    static let connectionMemoryBytes = 12_288

    /// Binds `host` (an IPv4 or IPv6 address) and `port`, and starts serving.
    /// - Parameters:
    ///   - limits: the head and body times and the connections per address.
    ///   - connections: the most connections at once (the configured one, lowered to fit the
    ///     process's descriptors), which the guard keeps to; libmicrohttpd's own limit has
    ///     ``closingRoom(for:)`` more for those being closed.
    ///   - maximumBodyBytes: longer bodies are not kept; the handler sees ``HTTPRequest/bodyTooLarge``.
    ///   - onEarlyClose: counts each connection closed for its slowness.
    init(
        host: String, port: UInt16, limits: HTTPLimits, connections: Int, maximumBodyBytes: Int,
        onEarlyClose: @escaping @Sendable (ConnectionGuard.Cause) -> Void, handler: @escaping Handler
    ) throws {
        self.handler = handler
        self.maximumBodyBytes = maximumBodyBytes
        connectionGuard = ConnectionGuard(limits: limits, capacity: connections, onClose: onEarlyClose)
        (listener, self.port) = try Self.listen(host: host, port: port)
        let context = Unmanaged.passUnretained(self).toOpaque()
        // poll, not select: the descriptors may number more than FD_SETSIZE.
        var flags =
            MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
            | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue
        if host.contains(":") { flags |= MHD_USE_IPv6.rawValue }
        let options: [any CVarArg] = [
            MHD_OPTION.LISTEN_SOCKET.rawValue, listener,
            MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(connections + Self.closingRoom(for: connections)),
            MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue, UInt32(limits.connectionsPerAddress),
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, Self.idleSeconds,
            MHD_OPTION.THREAD_STACK_SIZE.rawValue, Self.threadStackBytes,
            MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue, Self.connectionMemoryBytes,
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(requestCompleted, to: OpaquePointer.self),
            OpaquePointer(context),
            MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(connectionNotified, to: OpaquePointer.self),
            OpaquePointer(context),
            MHD_OPTION.END.rawValue,
        ]
        daemon = withVaList(options) { arguments in
            MHD_start_daemon_va(UInt32(flags), 0, nil, nil, accessHandler, context, arguments)
        }
        guard daemon != nil else {
            close(listener)
            throw Failure(description: "libmicrohttpd could not start on \(host):\(port)")
        }
    }

    deinit { stop() }

    /// Stops the server, after the requests being answered.
    func stop() {
        guard let daemon else { return }
        MHD_stop_daemon(daemon)
        self.daemon = nil
        connectionGuard.stop()
    }

    /// A bound, listening socket on `host` (an IPv4 address, or an IPv6 one), and its port.
    private static func listen(host: String, port: UInt16) throws -> (Int32, UInt16) {
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
                throw Failure(description: "listen: \(host) is not an IPv6 address")
            }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            (length, family) = (socklen_t(MemoryLayout<sockaddr_in6>.size), AF_INET6)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
                throw Failure(description: "listen: \(host) is not an IPv4 or IPv6 address")
            }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            (length, family) = (socklen_t(MemoryLayout<sockaddr_in>.size), AF_INET)
        }
        let socket = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "listen: no socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        // A deep accept queue (the kernel caps it at net.core.somaxconn): under a flood of
        // connections, a client whose handshake finds the queue full waits a second for its SYN's
        // retransmission, however quickly the server then frees room.
        guard bound == 0, Glibc.listen(socket, Self.acceptBacklog) == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw Failure(description: "listen: cannot bind \(host) port \(port): \(reason)")
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &actualLength) }
        }
        // sin_port and sin6_port are both the 2 bytes after the family.
        let boundPort = withUnsafeBytes(of: &actual) { $0.load(fromByteOffset: 2, as: UInt16.self) }
        return (socket, UInt16(bigEndian: boundPort))
    }

    /// One request being read.
    fileprivate final class PendingRequest {
        var body: [UInt8] = []
        var tooLarge = false
    }

    /// libmicrohttpd's access handler: called once when the headers are in, then with each piece
    /// of the body, then once more with none, when the response is queued.
    fileprivate func access(
        _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
        _ uploadData: UnsafePointer<CChar>?, _ uploadDataSize: UnsafeMutablePointer<Int>?,
        _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> MHD_Result {
        guard let state, let uploadDataSize, let connection else { return .NO }
        guard let stored = state.pointee else {
            connectionGuard.headReceived(connection)
            state.pointee = Unmanaged.passRetained(PendingRequest()).toOpaque()
            return .YES
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(stored).takeUnretainedValue()
        if uploadDataSize.pointee > 0 {
            if !pending.tooLarge, let uploadData {
                if pending.body.count + uploadDataSize.pointee > maximumBodyBytes {
                    pending.tooLarge = true
                    pending.body = []
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadDataSize.pointee) {
                        pending.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadDataSize.pointee))
                    }
                }
            }
            uploadDataSize.pointee = 0
            return .YES
        }
        connectionGuard.handling(connection)
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/",
            headers: Self.values(of: connection, .HEADER_KIND, lowercasingNames: true),
            query: Self.values(of: connection, .GET_ARGUMENT_KIND, lowercasingNames: false), body: pending.body,
            bodyTooLarge: pending.tooLarge, peer: IPAddress(peerOf: pushseal_mhd_connection_socket(connection)))
        let queued = Self.queue(handler(request), on: connection)
        // libmicrohttpd writes the answer once this returns, on this thread: from now the client
        // is awaited to read it.
        connectionGuard.sending(connection)
        return queued
    }

    /// The request's values of `kind`: its headers (names lower-cased) or its query's arguments
    /// (decoded by libmicrohttpd). A repeated name keeps its last value.
    private static func values(of connection: OpaquePointer?, _ kind: MHD_ValueKind, lowercasingNames: Bool)
        -> [String: String]
    {
        final class Collected {
            var values: [String: String] = [:]
            var lowercasing = false
        }
        let collected = Collected()
        collected.lowercasing = lowercasingNames
        let iterator: MHD_KeyValueIterator = { context, _, key, value in
            guard let context, let key else { return .YES }
            let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
            let name = collected.lowercasing ? HTTPServer.lowercasedASCII(key) : String(cString: key)
            collected.values[name] = value.map { String(cString: $0) } ?? ""
            return .YES
        }
        _ = withExtendedLifetime(collected) {
            MHD_get_connection_values(connection, kind, iterator, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.values
    }

    /// `name` with its ASCII capitals lowered, byte by byte. A header name is a token (RFC 9110
    /// §5.6.2), ASCII only, so this is all the lowering matching needs; any other byte is kept
    /// (and repaired as UTF-8), so a name outside the grammar matches nothing the gateway reads.
    static func lowercasedASCII(_ name: UnsafePointer<CChar>) -> String {
        let bytes = UnsafeBufferPointer(
            start: UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self), count: strlen(name))
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }

    private static func queue(_ response: HTTPResponse, on connection: OpaquePointer?) -> MHD_Result {
        let made = response.body.withUnsafeBytes { body in
            MHD_create_response_from_buffer(
                body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let made else { return .NO }
        defer { MHD_destroy_response(made) }
        for header in response.headers { _ = MHD_add_response_header(made, header.name, header.value) }
        return MHD_queue_response(connection, UInt32(response.status), made)
    }

    /// Releases a request's state once libmicrohttpd is done with it; the connection's next head
    /// is awaited from now.
    fileprivate func completed(_ connection: OpaquePointer?, _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        if let connection { connectionGuard.requestEnded(connection) }
        guard let state, let stored = state.pointee else { return }
        Unmanaged<PendingRequest>.fromOpaque(stored).release()
        state.pointee = nil
    }

    /// A connection starts or ends.
    fileprivate func connection(_ connection: OpaquePointer, started: Bool) {
        if started {
            let socket = pushseal_mhd_connection_socket(connection)
            connectionGuard.opened(connection, socket: socket, client: ClientAddress(peerOf: socket))
        } else {
            connectionGuard.closed(connection)
        }
    }
}

private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, size, state in
    guard let context else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    return server.access(connection, url, method, data, size, state)
}

private let requestCompleted: MHD_RequestCompletedCallback = { context, connection, state, _ in
    guard let context else { return }
    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().completed(connection, state)
}

private let connectionNotified: MHD_NotifyConnectionCallback = { context, connection, _, code in
    guard let context, let connection else { return }
    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().connection(
        connection, started: code == connectionStarted)
}

/// `MHD_CONNECTION_NOTIFY_STARTED`, which Swift imports without a name of its own.
private let connectionStarted = MHD_ConnectionNotificationCode(rawValue: 0)
