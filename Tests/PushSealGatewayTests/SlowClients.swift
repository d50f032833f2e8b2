import Foundation

/// Attackers that hold a server's connections: each connects from one of a set of loopback
/// addresses, sends part of a request head, then one more byte every `interval` seconds, never
/// finishing it (slowloris). Stopped and closed when released.
final class SlowClients: @unchecked Sendable {
    private var sockets: [Int32] = []
    private let lock = NSLock()
    private let stopped = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Opens `count` connections to `127.0.0.1:port`, spread evenly over `sources` (loopback
    /// addresses to connect from), and starts trickling. A connection the server refuses at once
    /// is still counted as opened: ``openCount`` tells what stays open.
    init(count: Int, to port: UInt16, from sources: [String], interval: Double = 2) {
        for index in 0..<count {
            let socket = Self.connect(to: port, from: sources[index % sources.count])
            guard socket >= 0 else { continue }
            _ = "GET /healthz HTTP/1.1\r\nHost: gateway\r\nX-Slow: ".withCString {
                send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL))
            }
            sockets.append(socket)
        }
        let thread = Thread { [self] in
            while stopped.wait(timeout: .now() + interval) == .timedOut {
                for socket in lock.withLock({ sockets }) {
                    var byte: UInt8 = 0x61
                    _ = send(socket, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
            }
            finished.signal()
        }
        thread.start()
    }

    deinit {
        stopped.signal()
        finished.wait()
        for socket in sockets { close(socket) }
    }

    /// How many connections the server has not closed (reads see no end of input).
    var openCount: Int {
        lock.withLock { sockets }.filter { socket in
            var byte: UInt8 = 0
            let read = recv(socket, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
            return read < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        }.count
    }

    /// A TCP connection from `source` to 127.0.0.1:`port`, or -1; a connect that takes over a
    /// second is given up.
    private static func connect(to port: UInt16, from source: String) -> Int32 {
        // Close-on-exec: a server another test starts must not inherit the attack.
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return -1 }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 else {
            close(socket)
            return -1
        }
        return socket
    }
}
