// The socket types' members are seen through CMicroHTTPD, whose header includes the system's.
internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 address, whole: a connection's peer, or one named in the configuration or in
/// an `X-Forwarded-For` header. An IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`) is that IPv4
/// address, so that a dual-stack listener's peers match the ranges that name them.
struct IPAddress: Hashable, Sendable {
    /// 4 bytes (IPv4) or 16 (IPv6), in network order.
    let bytes: [UInt8]

    /// The address of `bytes`: 4 of IPv4 or 16 of IPv6.
    init?(bytes: [UInt8]) {
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        switch bytes.count {
        case 4: self.bytes = bytes
        case 16: self.bytes = bytes.starts(with: mappedPrefix) ? Array(bytes[12..<16]) : bytes
        default: return nil
        }
    }

    /// The address written as `text` (`192.0.2.1`, `2001:db8::1`, as `inet_pton` reads them); nil
    /// for anything else (a port, brackets, a zone).
    init?(_ text: some StringProtocol) {
        var storage = [UInt8](repeating: 0, count: 16)
        let text = String(text)
        if text.contains(":") {
            guard inet_pton(AF_INET6, text, &storage) == 1 else { return nil }
            self.init(bytes: storage)
        } else {
            guard inet_pton(AF_INET, text, &storage) == 1 else { return nil }
            self.init(bytes: Array(storage.prefix(4)))
        }
    }

    /// The peer of the connection on `socket`; nil when the socket has none (closed already, or
    /// not an IP socket).
    init?(peerOf socket: Int32) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &length) }
        }
        guard found == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            self.init(bytes: withUnsafeBytes(of: address.sin_addr) { Array($0) })
        case AF_INET6:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            self.init(bytes: withUnsafeBytes(of: address.sin6_addr) { Array($0) })
        default:
            return nil
        }
    }

    /// The client this address counts as: itself (IPv4), or its /64 network (IPv6).
    var client: ClientAddress { ClientAddress(self) }
}
