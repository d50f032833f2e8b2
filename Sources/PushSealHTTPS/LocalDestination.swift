#if canImport(CLibSSL)
    import Glibc

    extension HostResolver.Address {
        /// True for an address on this machine or its local network, which a CDN must never make
        /// the device connect to: unspecified, loopback, private (RFC 1918), shared (RFC 6598),
        /// link-local, unique-local (RFC 4193), multicast, and an IPv4-mapped IPv6 address of any
        /// of them. Read from the resolved socket address itself, never from the name.
        package var isLocal: Bool {
            switch family {
            case AF_INET where bytes.count >= 8:
                return Self.isLocalIPv4(Array(bytes[4..<8]))
            case AF_INET6 where bytes.count >= 24:
                let address = Array(bytes[8..<24])
                if address[0..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF {
                    return Self.isLocalIPv4(Array(address[12..<16]))
                }
                let unspecifiedOrLoopback = address[0..<15].allSatisfy { $0 == 0 } && address[15] <= 1
                return unspecifiedOrLoopback
                    || address[0] & 0xFE == 0xFC  // fc00::/7, unique local
                    || (address[0] == 0xFE && address[1] & 0xC0 == 0x80)  // fe80::/10, link local
                    || address[0] == 0xFF  // multicast
            default:
                return true
            }
        }

        /// The address as `inet_ntop` prints it (`127.0.0.1`, `::1`), or nil for a socket
        /// address that is neither IPv4 nor IPv6 or is cut short.
        package var numericText: String? {
            let offset: Int
            switch family {
            case AF_INET where bytes.count >= 8: offset = 4
            case AF_INET6 where bytes.count >= 24: offset = 8
            default: return nil
            }
            var output = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let printed: UnsafePointer<CChar>? = bytes.withUnsafeBytes { raw in
                raw.baseAddress.flatMap { inet_ntop(family, $0 + offset, &output, socklen_t(output.count)) }
            }
            guard printed != nil else { return nil }
            return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        private static func isLocalIPv4(_ a: [UInt8]) -> Bool {
            a[0] == 0  // 0.0.0.0/8, this network
                || a[0] == 10  // 10/8
                || a[0] == 127  // loopback
                || (a[0] == 100 && a[1] & 0xC0 == 64)  // 100.64/10, shared address space
                || (a[0] == 169 && a[1] == 254)  // link local
                || (a[0] == 172 && a[1] & 0xF0 == 16)  // 172.16/12
                || (a[0] == 192 && a[1] == 168)  // 192.168/16
                || a[0] >= 224  // multicast and reserved
        }
    }
#endif
