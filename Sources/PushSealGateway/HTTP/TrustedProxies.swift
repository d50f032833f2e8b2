internal import Foundation
internal import PushSealCore
internal import PushSealGatewayModel

/// The `http.trusted_proxies` member: the proxies (a TLS front, a load balancer) whose
/// `X-Forwarded-For` header the gateway believes when it counts requests per client address
/// (gateway-v1.md, "Slow and greedy clients"). Behind nginx on the same host every request comes
/// from 127.0.0.1, and counting that one address would count every phone together; a header from
/// any other peer is ignored, since a client writes what it likes there.
///
/// ```json
/// "http": {"trusted_proxies": ["127.0.0.1", "::1", "10.0.0.0/8"]}
/// ```
struct TrustedProxies: Sendable {
    /// One address, or a network as `address/prefix-length`.
    struct Range: Sendable {
        let network: IPAddress
        let prefixLength: Int

        /// The range written `text`: an address, or `address/prefix-length`; nil for anything
        /// else, or a prefix longer than the address.
        init?(_ text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let network = IPAddress(parts[0]) else { return nil }
            let bits = network.bytes.count * 8
            if parts.count == 2 {
                guard parts[1].allSatisfy(\.isASCII), let length = Int(parts[1]), (0...bits).contains(length)
                else { return nil }
                prefixLength = length
            } else {
                prefixLength = bits
            }
            self.network = network
        }

        /// Whether `address` is in the range (an IPv4 address never is in an IPv6 range).
        func contains(_ address: IPAddress) -> Bool {
            guard address.bytes.count == network.bytes.count else { return false }
            for index in 0..<network.bytes.count {
                let bitsHere = min(8, max(0, prefixLength - index * 8))
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bitsHere))
                if (address.bytes[index] ^ network.bytes[index]) & mask != 0 { return false }
            }
            return true
        }
    }

    /// The proxies believed.
    let ranges: [Range]

    /// Loopback: a TLS front on the gateway's host, as deploy/nginx-pushseal-gateway.conf is.
    static let loopback = TrustedProxies(ranges: ["127.0.0.0/8", "::1"].compactMap(Range.init))

    private init(ranges: [Range]) { self.ranges = ranges }

    /// Reads the `trusted_proxies` member `value` (at `path`): an array of up to 100 addresses or
    /// networks; ``loopback`` when it is absent, none when it is empty.
    /// - Throws: ``GatewayError`` naming the element at fault.
    init(_ value: JSONValue?, at path: JSONPath) throws(GatewayError) {
        guard let value else {
            self = .loopback
            return
        }
        guard case .array(let items) = value, items.count <= 100 else {
            throw GatewayConfiguration.invalid(path, "must be an array of at most 100 addresses or networks")
        }
        var ranges: [Range] = []
        for (index, item) in items.enumerated() {
            guard let text = item.stringValue, let range = Range(text) else {
                throw GatewayConfiguration.invalid(
                    path.element(index), "must be an IP address or a network (192.0.2.0/24, 2001:db8::/32)")
            }
            ranges.append(range)
        }
        self.ranges = ranges
    }

    /// Whether `address` is one of the proxies.
    func trusts(_ address: IPAddress) -> Bool { ranges.contains { $0.contains(address) } }

    /// The client a request came from: its `peer`, unless the peer is a trusted proxy; then the
    /// last address of `forwardedFor` (the `X-Forwarded-For` header: each proxy appends the
    /// address it was reached from) that is not itself a trusted proxy, read from the right. An
    /// entry that is not an address stops the reading at the proxy that wrote it, as does a
    /// header that has none. Nil without a peer.
    func client(peer: IPAddress?, forwardedFor: String?) -> ClientAddress? {
        guard var client = peer else { return nil }
        guard trusts(client), let forwardedFor else { return client.client }
        for entry in forwardedFor.split(separator: ",").reversed() {
            guard trusts(client), let address = IPAddress(entry.trimmingCharacters(in: .whitespaces)) else { break }
            client = address
        }
        return client.client
    }
}
