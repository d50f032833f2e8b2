import Glibc
import PushSealHTTPS
import Testing

@Suite("Socket connector")
struct SocketConnectorTests {
    /// A socket listening on 127.0.0.1, and its port.
    private func listener(backlog: Int32) throws -> (socket: Int32, port: UInt16) {
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        try withUnsafePointer(to: &address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                try #require(bind(listening, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0)
            }
        }
        try #require(listen(listening, backlog) == 0)
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) }
        }
        return (listening, UInt16(bigEndian: bound.sin_port))
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private static func resolved(port: UInt16) -> HostResolver.Address {
        var address = loopback(port: port)
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        return HostResolver.Address(family: AF_INET, bytes: bytes)
    }

    /// The port `socket` is connected to.
    private static func peerPort(_ socket: Int32) -> UInt16 {
        var peer = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &length) }
        }
        return UInt16(bigEndian: peer.sin_port)
    }

    /// A listener whose accept queue is full, so that it drops new SYNs: connecting to it hangs.
    /// - Returns: its port, and the sockets to close after.
    private func unansweringListener() throws -> (port: UInt16, sockets: [Int32]) {
        let stuck = try listener(backlog: 0)
        var sockets = [stuck.socket]
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = Self.loopback(port: stuck.port)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            sockets.append(filler)
        }
        usleep(200_000)
        return (stuck.port, sockets)
    }

    @Test("an address that never answers is left after the attempt limit, and the next one is used")
    func unansweredAddress() throws {
        let stuck = try unansweringListener()
        let good = try listener(backlog: 8)
        defer { (stuck.sockets + [good.socket]).forEach { close($0) } }
        let started = ContinuousClock.now
        let connected = try SocketConnector.connect(
            to: [Self.resolved(port: stuck.port), Self.resolved(port: good.port)], naming: "127.0.0.1",
            wait: TransferWait(deadline: started + .seconds(30), cancelled: { false }))
        defer { close(connected) }
        let took = ContinuousClock.now - started
        #expect(Self.peerPort(connected) == good.port)
        #expect(took >= SocketConnector.attemptLimit - .milliseconds(200) && took < .seconds(15), "\(took)")
    }

    @Test("the transfer's own deadline still ends the attempts, as a timeout")
    func deadline() throws {
        let stuck = try unansweringListener()
        defer { stuck.sockets.forEach { close($0) } }
        let started = ContinuousClock.now
        #expect {
            _ = try SocketConnector.connect(
                to: [Self.resolved(port: stuck.port), Self.resolved(port: stuck.port)], naming: "127.0.0.1",
                wait: TransferWait(deadline: started + .milliseconds(700), cancelled: { false }))
        } throws: { ($0 as? HTTPSFailure)?.kind == .timeout }
        #expect(ContinuousClock.now - started < .seconds(3))
    }
}
