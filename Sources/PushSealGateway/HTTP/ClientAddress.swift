#if canImport(Glibc)
    import Glibc
#endif

/// Who a connection comes from, as ``ConnectionGuard`` counts connections to share them fairly:
/// an IPv4 address, or the /64 network of an IPv6 one (one host, one customer, is commonly given
/// a whole /64, so counting its addresses apart would let it pose as billions of clients). An
/// IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`) is that IPv4 address.
struct ClientAddress: Hashable, Sendable {
    /// The IPv4 address, or the IPv6 network's first 8 bytes.
    private let bytes: [UInt8]

    /// The client of the connection on `socket`: its peer's address; nil when the socket has none
    /// (closed already, or not an IP socket).
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
            self.init(ipv4: withUnsafeBytes(of: address.sin_addr) { Array($0) })
        case AF_INET6:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            self.init(ipv6: withUnsafeBytes(of: address.sin6_addr) { Array($0) })
        default:
            return nil
        }
    }

    /// The client of the 4 bytes of an IPv4 address.
    init(ipv4: [UInt8]) { bytes = ipv4 }

    /// The client of the 16 bytes of an IPv6 address: its /64 network, or the IPv4 address it maps.
    init(ipv6: [UInt8]) {
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        bytes = ipv6.starts(with: mappedPrefix) ? Array(ipv6[12..<16]) : Array(ipv6.prefix(8))
    }
}
