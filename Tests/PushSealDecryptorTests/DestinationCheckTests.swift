import PushSealCore
import Testing

@testable import PushSealDecryptor

/// The destination rule of the `URLSession` transport (media-v1.md, "Destinations"), run here
/// with this system's resolver: numeric hosts and `localhost` need no network.
@Suite("The URLSession transport's destination check")
struct DestinationCheckTests {
    @Test(
        "a host that resolves to a local address is refused as media-local-destination",
        arguments: ["localhost", "127.0.0.1", "10.1.2.3", "192.168.0.10", "169.254.169.254", "::1", "[::1]", "fe80::1"])
    func local(_ host: String) throws {
        let refusal = try #require(DestinationCheck.refusal(forHost: host), "\(host) was allowed")
        #expect(refusal.reason == .localDestination, "\(host): \(refusal)")
    }

    @Test("a public address passes", arguments: ["8.8.8.8", "17.253.144.10", "2001:4860:4860::8888"])
    func publicAddress(_ host: String) {
        #expect(DestinationCheck.refusal(forHost: host) == nil, "\(host)")
    }

    @Test("no host, and a name that does not resolve, are refused with their own reasons")
    func unusable() throws {
        #expect(DestinationCheck.refusal(forHost: "")?.reason == .insecureURL)
        #expect(DestinationCheck.refusal(forHost: "no-such-host.invalid")?.reason == .unreachable)
    }
}
