/// The media-v1 rule of which addresses are **local** ("Destinations"): those on this machine or
/// its local network, which a descriptor or a CDN's redirect must never make a device connect to.
/// Read from an address's bytes, never from a name: unspecified, loopback, private (RFC 1918),
/// shared (RFC 6598), link-local, unique-local (RFC 4193), site-local, multicast and reserved,
/// and an IPv6 address that carries a local IPv4 one (mapped, SIIT, NAT64, 6to4). Both media transports apply it: the Linux one to every
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

    /// Whether the IPv6 address `address` (16 bytes) is local. Besides IPv6's own local ranges, an
    /// address that carries an IPv4 one (which a translator or tunnel may turn into that IPv4
    /// destination) is local when that IPv4 address is: IPv4-mapped `::ffff:0:0/96`, SIIT's
    /// `::ffff:0:0:0/96` (RFC 6052's ancestor, RFC 2765), the well-known NAT64 prefix
    /// `64:ff9b::/96` (RFC 6052), and 6to4's `2002::/16` (RFC 3056). The deprecated IPv4-compatible
    /// `::/96` (RFC 4291 §2.5.5.1), the local-use NAT64 prefix `64:ff9b:1::/48` (RFC 8215) and
    /// the deprecated site-local `fec0::/10` (RFC 3879) are local whole.
    package static func isLocal(ipv6 address: [UInt8]) -> Bool {
        guard address.count == 16 else { return true }
        let zeros = { (range: Range<Int>) in address[range].allSatisfy { $0 == 0 } }
        if zeros(0..<10) && address[10] == 0xFF && address[11] == 0xFF {  // ::ffff:a.b.c.d
            return isLocal(ipv4: Array(address[12..<16]))
        }
        if zeros(0..<8) && address[8] == 0xFF && address[9] == 0xFF && zeros(10..<12) {  // ::ffff:0:a.b.c.d
            return isLocal(ipv4: Array(address[12..<16]))
        }
        if address[0..<4] == [0x00, 0x64, 0xFF, 0x9B] {
            if zeros(4..<12) { return isLocal(ipv4: Array(address[12..<16])) }  // 64:ff9b::/96
            if address[4] == 0x00 && address[5] == 0x01 { return true }  // 64:ff9b:1::/48
        }
        if address[0] == 0x20 && address[1] == 0x02 { return isLocal(ipv4: Array(address[2..<6])) }  // 2002::/16
        return zeros(0..<12)  // ::/96: unspecified, loopback, IPv4-compatible
            || address[0] & 0xFE == 0xFC  // fc00::/7, unique local
            || (address[0] == 0xFE && address[1] & 0xC0 == 0x80)  // fe80::/10, link local
            || (address[0] == 0xFE && address[1] & 0xC0 == 0xC0)  // fec0::/10, site local
            || address[0] == 0xFF  // multicast
    }
}
