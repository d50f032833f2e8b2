import PushSealCore
import PushSealURL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// media-v1's destination rule for the `URLSession` transport, which resolves and connects
/// inside the system: the host is resolved here first, with the system's resolver, and refused
/// when **any** address it resolves to is local (``PushSealURL/LocalAddress``). Stricter than
/// the Linux transport, which connects to the other addresses of such a host: `URLSession`
/// cannot be told which address to use.
///
/// What remains: `URLSession` resolves the host again. A DNS answer that changes between this
/// check and that connection (a rebinding name with a zero TTL) can still make one GET reach a
/// local address. That GET carries nothing of the user's (an ephemeral session: no cookie, no
/// credential, no cache), and whatever it brings back is refused unless it is the sealed object
/// (its SHA-256 and every chunk's tag), so the attacker learns no content; what it can do is a
/// blind request to a device of the local network. Closing that needs a connection to the
/// checked address itself (Network.framework with TLS to the name), which the Linux transport
/// does and this one does not.
///
/// Platform-neutral, so that Linux tests it; only the `URLSession` transport calls it.
enum DestinationCheck {
    /// Why a download from `host` (a name, or an address, IPv6 with or without brackets) must
    /// not start, or nil.
    static func refusal(forHost host: String) -> MediaFailure? {
        guard !host.isEmpty else { return MediaFailure(.insecureURL, "the URL has no host") }
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else {
            return MediaFailure(.unreachable, "\(name) does not resolve")
        }
        defer { freeaddrinfo(first) }
        for entry in sequence(first: first, next: { $0.pointee.ai_next }) {
            guard let address = entry.pointee.ai_addr else { continue }
            if isLocal(address, family: entry.pointee.ai_family) {
                return MediaFailure(
                    .localDestination,
                    "\(name) resolves to a local address, which the device never connects to (media-v1.md, \"Destinations\")"
                )
            }
        }
        return nil
    }

    private static func isLocal(_ address: UnsafeMutablePointer<sockaddr>, family: Int32) -> Bool {
        switch family {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                withUnsafeBytes(of: ipv4.pointee.sin_addr) { LocalAddress.isLocal(ipv4: Array($0)) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                withUnsafeBytes(of: ipv6.pointee.sin6_addr) { LocalAddress.isLocal(ipv6: Array($0)) }
            }
        default:
            return true
        }
    }
}
