import Testing

@testable import PushSealURL

/// media-v1's "Destinations": which addresses a media download must never reach, on both
/// transports.
@Suite("Local addresses")
struct LocalAddressTests {
    @Test(
        "IPv4: this network, private, loopback, shared, link-local, multicast and reserved are local; public is not",
        arguments: [
            ([0, 1, 2, 3], true), ([10, 0, 0, 1], true), ([127, 0, 0, 1], true), ([100, 64, 0, 1], true),
            ([100, 127, 255, 255], true), ([169, 254, 1, 1], true), ([172, 16, 0, 1], true),
            ([172, 31, 255, 255], true), ([192, 168, 1, 1], true), ([224, 0, 0, 1], true),
            ([255, 255, 255, 255], true),
            ([100, 128, 0, 1], false), ([172, 32, 0, 1], false), ([8, 8, 8, 8], false), ([17, 253, 144, 10], false),
        ] as [([UInt8], Bool)])
    func ipv4(_ address: [UInt8], _ local: Bool) {
        #expect(LocalAddress.isLocal(ipv4: address) == local, "\(address)")
    }

    @Test("IPv6: ::, ::1, fc00::/7, fe80::/10, ff00::/8 and the IPv4-mapped local ones are local")
    func ipv6() {
        func address(_ head: [UInt8], _ tail: [UInt8] = []) -> [UInt8] {
            head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
        }
        #expect(LocalAddress.isLocal(ipv6: address([])))
        #expect(LocalAddress.isLocal(ipv6: address([], [1])))
        #expect(LocalAddress.isLocal(ipv6: address([0xFD, 0x12])))
        #expect(LocalAddress.isLocal(ipv6: address([0xFE, 0x80])))
        #expect(LocalAddress.isLocal(ipv6: address([0xFF, 0x02])))
        #expect(LocalAddress.isLocal(ipv6: address([], [0xFF, 0xFF, 192, 168, 0, 1])))
        #expect(!LocalAddress.isLocal(ipv6: address([], [0xFF, 0xFF, 8, 8, 8, 8])))
        #expect(!LocalAddress.isLocal(ipv6: address([0x20, 0x01, 0x0D, 0xB8], [1])))
        #expect(LocalAddress.isLocal(ipv6: [0, 1]), "a cut-short address counts as local")
    }

    @Test(
        "IPv6 forms that carry a local IPv4 address are local (SIIT, NAT64, 6to4), as are ::/96, 64:ff9b:1::/48 and fec0::/10"
    )
    func ipv6CarryingIPv4() {
        func address(_ head: [UInt8], _ tail: [UInt8] = []) -> [UInt8] {
            head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
        }
        let nat64: [UInt8] = [0x00, 0x64, 0xFF, 0x9B]
        #expect(LocalAddress.isLocal(ipv6: address([], [0xFF, 0xFF, 0, 0, 10, 0, 0, 1])), "SIIT 10.0.0.1")
        #expect(!LocalAddress.isLocal(ipv6: address([], [0xFF, 0xFF, 0, 0, 8, 8, 8, 8])), "SIIT 8.8.8.8")
        #expect(LocalAddress.isLocal(ipv6: address(nat64, [192, 168, 0, 1])), "NAT64 192.168.0.1")
        #expect(LocalAddress.isLocal(ipv6: address(nat64, [127, 0, 0, 1])), "NAT64 127.0.0.1")
        #expect(!LocalAddress.isLocal(ipv6: address(nat64, [8, 8, 8, 8])), "NAT64 8.8.8.8")
        #expect(LocalAddress.isLocal(ipv6: address(nat64 + [0x00, 0x01], [8, 8, 8, 8])), "64:ff9b:1::/48, local use")
        #expect(LocalAddress.isLocal(ipv6: address([0x20, 0x02, 10, 1, 2, 3])), "6to4 of 10.1.2.3")
        #expect(LocalAddress.isLocal(ipv6: address([0x20, 0x02, 127, 0, 0, 1])), "6to4 of 127.0.0.1")
        #expect(!LocalAddress.isLocal(ipv6: address([0x20, 0x02, 8, 8, 8, 8])), "6to4 of 8.8.8.8")
        #expect(LocalAddress.isLocal(ipv6: address([], [10, 0, 0, 1])), "IPv4-compatible ::10.0.0.1")
        #expect(LocalAddress.isLocal(ipv6: address([], [8, 8, 8, 8])), "IPv4-compatible, deprecated: local whole")
        #expect(LocalAddress.isLocal(ipv6: address([0xFE, 0xC0])), "site-local")
        #expect(!LocalAddress.isLocal(ipv6: address([0x26, 0x06, 0x47, 0x00], [1])), "a public address")
    }
}
