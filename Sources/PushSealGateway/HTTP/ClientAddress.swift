/// Who a connection comes from, as ``ConnectionGuard`` counts connections to share them fairly:
/// an IPv4 address, or the /64 network of an IPv6 one (one host, one customer, is commonly given
/// a whole /64, so counting its addresses apart would let it pose as billions of clients). An
/// IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`) is that IPv4 address.
struct ClientAddress: Hashable, Sendable {
    /// The IPv4 address, or the IPv6 network's first 8 bytes.
    private let bytes: [UInt8]

    /// The client of the connection on `socket` (``IPAddress/init(peerOf:)``).
    init?(peerOf socket: Int32) {
        guard let peer = IPAddress(peerOf: socket) else { return nil }
        self = peer.client
    }

    /// The client of the 4 bytes of an IPv4 address.
    init(ipv4: [UInt8]) { self.init(counted: ipv4) }

    /// The client of the 16 bytes of an IPv6 address: its /64 network, or the IPv4 address it
    /// maps (``IPAddress/init(bytes:)`` tells).
    init(ipv6: [UInt8]) {
        guard let address = IPAddress(bytes: ipv6) else {
            self.init(counted: Array(ipv6.prefix(8)))
            return
        }
        self.init(address)
    }

    /// The client `address` counts as: itself (IPv4), or its /64 network (IPv6).
    init(_ address: IPAddress) {
        self.init(counted: address.bytes.count == 4 ? address.bytes : Array(address.bytes.prefix(8)))
    }

    private init(counted bytes: [UInt8]) { self.bytes = bytes }
}

extension ClientAddress {
    /// The client as text that names it alone, for keying what is counted per client (the
    /// receipts' rate): its bytes in hexadecimal. Never logged.
    var key: String { bytes.map { String($0, radix: 16) }.joined(separator: ".") }
}
