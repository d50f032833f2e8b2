/// The media-v1 rule of which addresses are **local** ("Destinations"): those on this machine or
/// its local network, which a descriptor or a CDN's redirect must never make a device connect to.
/// Read from an address's bytes, never from a name: unspecified, loopback, private (RFC 1918),
/// shared (RFC 6598), link-local, unique-local (RFC 4193), multicast and reserved, and an
/// IPv4-mapped IPv6 address of any of them. Both media transports apply it: the Linux one to every
/// address it connects to, the `URLSession` one to every address a host resolves to.
package enum LocalAddress {
    /// Whether the IPv4 address `a` (4 bytes, network order) is local.
    package static func isLocal(ipv4 a: [UInt8]) -> Bool {
        guard a.count == 4 else { return true }
        return a[0] == 0  // 0.0.0.0/8, this network
            || a[0] == 10  // 10/8
            || a[0] == 127  // loopback
            || (a[0] == 100 && a[1] & 0xC0 == 64)  // 100.64/10, shared address space
            || (a[0] == 169 && a[1] == 254)  // link local
            || (a[0] == 172 && a[1] & 0xF0 == 16)  // 172.16/12
            || (a[0] == 192 && a[1] == 168)  // 192.168/16
            || a[0] >= 224  // multicast and reserved
    }

    /// Whether the IPv6 address `address` (16 bytes) is local.
    package static func isLocal(ipv6 address: [UInt8]) -> Bool {
        guard address.count == 16 else { return true }
        if address[0..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF {
            return isLocal(ipv4: Array(address[12..<16]))
        }
        let unspecifiedOrLoopback = address[0..<15].allSatisfy { $0 == 0 } && address[15] <= 1
        return unspecifiedOrLoopback
            || address[0] & 0xFE == 0xFC  // fc00::/7, unique local
            || (address[0] == 0xFE && address[1] & 0xC0 == 0x80)  // fe80::/10, link local
            || address[0] == 0xFF  // multicast
    }
}
