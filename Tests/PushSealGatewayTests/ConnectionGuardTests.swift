import Synchronization
import Testing

@testable import PushSealGateway

/// Which connection ``ConnectionGuard`` closes when a new one needs room (gateway-v1.md, "Slow
/// and greedy clients"): one that waits on its client, of the client that holds the most, the
/// one of those that waited longest; never one whose handler runs.
@Suite("the HTTP server's connection guard")
struct ConnectionGuardTests {
    /// A guard of 64 connections (4 kept for arrivals), and the sockets it shut down, in order.
    final class Watched: Sendable {
        /// The sockets shut down, in order.
        final class Sockets: Sendable {
            let list = Mutex<[Int32]>([])
        }

        let shutDown = Sockets()
        let connectionGuard: ConnectionGuard

        init() {
            let shutDown = self.shutDown
            connectionGuard = ConnectionGuard(
                limits: HTTPLimits(), capacity: 64, onClose: { _ in },
                shutDown: { socket in shutDown.list.withLock { $0.append(socket) } })
        }

        deinit { connectionGuard.stop() }

        /// Opens connection `number` (its socket is the same number) of `client`.
        func open(_ number: Int32, from client: ClientAddress?) {
            connectionGuard.opened(Self.connection(number), socket: number, client: client)
        }

        /// Opens connections `numbers` of `client`, each with its head read and its handler run;
        /// with `sending`, each then waits for its client to read its answer.
        func openHandled(_ numbers: ClosedRange<Int32>, from client: ClientAddress, sending: Bool = false) {
            for number in numbers {
                open(number, from: client)
                connectionGuard.headReceived(Self.connection(number))
                connectionGuard.handling(Self.connection(number))
                if sending { connectionGuard.sending(Self.connection(number)) }
            }
        }

        /// The stand-in for libmicrohttpd's connection `number` (from 1): a pointer never followed.
        static func connection(_ number: Int32) -> OpaquePointer {
            unsafeBitCast(UInt(number) << 4, to: OpaquePointer.self)
        }

        var closed: [Int32] { shutDown.list.withLock { $0 } }
    }

    static let attacker = ClientAddress(ipv4: [203, 0, 113, 7])
    static let uploader = ClientAddress(ipv4: [198, 51, 100, 1])
    static let newcomer = ClientAddress(ipv4: [192, 0, 2, 1])

    @Test("a client's slow upload keeps its place when another client holds the most, however young its connections")
    func mostHeldClientGivesWay() {
        let watched = Watched()
        // The upload came first: the oldest connection, reading its body.
        watched.open(1, from: Self.uploader)
        watched.connectionGuard.headReceived(Watched.connection(1))
        // 59 connections of one client, each reading its answers slowly.
        watched.openHandled(2...60, from: Self.attacker, sending: true)
        #expect(watched.closed.isEmpty, "60 of 64: no room needed yet")
        for number in Int32(61)...70 { watched.open(number, from: Self.newcomer) }
        let closed = watched.closed
        #expect(closed.count == 10 && closed.allSatisfy { (2...60).contains($0) }, "\(closed)")
        #expect(closed == Array(2...11), "the attacker's connections that waited longest first: \(closed)")
    }

    @Test("a connection whose handler runs is never closed for room; one waiting for its client to read is")
    func handlingKeepsItsPlace() {
        let watched = Watched()
        watched.openHandled(1...60, from: Self.attacker)
        // Only the last one has its answer queued.
        watched.connectionGuard.sending(Watched.connection(60))
        watched.open(61, from: Self.newcomer)
        #expect(watched.closed == [60], "the one waiting on its reader: \(watched.closed)")
        watched.open(62, from: Self.newcomer)
        #expect(watched.closed == [60], "never a handler, nor a newcomer holding less than its share")
        // Once one of the attacker's answers is queued, the next arrival closes it.
        watched.connectionGuard.sending(Watched.connection(1))
        watched.open(63, from: Self.newcomer)
        #expect(watched.closed == [60, 1], "\(watched.closed)")
    }

    @Test(
        "a steady upload keeps its place while every connection of the client holding the most is being handled"
    )
    func uploadKeepsItsPlaceWhileTheMostHeldAreHandled() {
        let watched = Watched()
        watched.open(1, from: Self.uploader)
        watched.connectionGuard.headReceived(Watched.connection(1))
        watched.openHandled(2...60, from: Self.attacker)
        // New clients, one connection each, waiting for their heads: the upload has waited longest.
        for number in Int32(61)...63 { watched.open(number, from: ClientAddress(ipv4: [192, 0, 2, UInt8(number)])) }
        #expect(watched.closed.isEmpty, "no one waits of a client at its share: \(watched.closed)")
        // Many clients of one connection each: every one holds its share, and the oldest gives way.
        let crowd = Watched()
        for number in Int32(1)...64 { crowd.open(number, from: ClientAddress(ipv4: [192, 0, 2, UInt8(number)])) }
        #expect(crowd.closed == [1, 2, 3, 4], "\(crowd.closed)")
    }

    @Test("clients are addresses, an IPv6 address's /64, an IPv4 address mapped into IPv6 the IPv4 address")
    func clientAddresses() {
        let v6 = { (last: UInt8, network: UInt8) -> [UInt8] in
            [0x20, 0x01, 0x0D, 0xB8, 0, network, 0, 0] + [0, 0, 0, 0, 0, 0, 0, last]
        }
        #expect(ClientAddress(ipv6: v6(1, 1)) == ClientAddress(ipv6: v6(2, 1)), "one /64")
        #expect(ClientAddress(ipv6: v6(1, 1)) != ClientAddress(ipv6: v6(1, 2)), "another /64")
        let mapped = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 203, 0, 113, 7]
        #expect(ClientAddress(ipv6: mapped) == Self.attacker)
        #expect(ClientAddress(ipv4: [203, 0, 113, 8]) != Self.attacker)
    }
}
