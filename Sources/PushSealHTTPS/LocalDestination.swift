#if canImport(CLibSSL)
    import Glibc
    internal import PushSealURL

    extension HostResolver.Address {
        /// True for an address on this machine or its local network, which a CDN must never make
        /// the device connect to (``PushSealURL/LocalAddress``); an address that is neither IPv4
        /// nor IPv6, or is cut short, counts as local. Read from the resolved socket address
        /// itself, never from the name.
        package var isLocal: Bool {
            switch family {
            case AF_INET where bytes.count >= 8: LocalAddress.isLocal(ipv4: Array(bytes[4..<8]))
            case AF_INET6 where bytes.count >= 24: LocalAddress.isLocal(ipv6: Array(bytes[8..<24]))
            default: true
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
    }
#endif
