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
    init(ipv4: [UInt8]) { bytes = ipv4 }

    /// The client of the 16 bytes of an IPv6 address: its /64 network, or the IPv4 address it maps.
    init(ipv6: [UInt8]) {
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        bytes = ipv6.starts(with: mappedPrefix) ? Array(ipv6[12..<16]) : Array(ipv6.prefix(8))
    }
}

extension ClientAddress {
    /// The client as text that names it alone, for keying what is counted per client (the
    /// receipts' rate): its bytes in hexadecimal. Never logged.
    var key: String { bytes.map { String($0, radix: 16) }.joined(separator: ".") }
}
