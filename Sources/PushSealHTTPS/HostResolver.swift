#if canImport(CLibSSL)
    import Glibc
    import Synchronization

    /// Name resolution that cannot outlast the deadline: `getaddrinfo` blocks for as long as DNS
    /// takes, so it runs on a thread of its own while the caller waits until the answer, the
    /// deadline or cancellation. A late answer is dropped by that thread when it comes.
    package enum HostResolver {
        /// One resolved address, ready for `connect`.
        package struct Address: Sendable {
            /// `AF_INET` or `AF_INET6`.
            package let family: Int32
            /// The `sockaddr_in` or `sockaddr_in6`, port included.
            package let bytes: [UInt8]

            /// An address of `family` from its socket address bytes.
            package init(family: Int32, bytes: [UInt8]) {
                self.family = family
                self.bytes = bytes
            }
        }

        /// The TCP addresses of `host` and `port`, in the order the system prefers.
        static func addresses(of host: String, port: Int, wait: TransferWait) throws(HTTPSFailure) -> [Address] {
            let lookup = Lookup(host: host, port: port)
            var thread = pthread_t()
            let context = Unmanaged.passRetained(lookup).toOpaque()
            let started = pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    Unmanaged<Lookup>.fromOpaque(context).takeRetainedValue().run()
                    return nil
                }, context)
            guard started == 0 else {
                Unmanaged<Lookup>.fromOpaque(context).release()
                throw HTTPSFailure(.unreachable, "cannot start a thread to resolve \(host)")
            }
            pthread_detach(thread)
            while true {
                if let answer = lookup.answer.withLock({ $0 }) {
                    return try answer.get()
                }
                try wait.check()
                usleep(5_000)
            }
        }

        /// One `getaddrinfo` call and its answer.
        private final class Lookup: Sendable {
            let host: String
            let port: Int
            let answer = Mutex<Result<[Address], HTTPSFailure>?>(nil)

            init(host: String, port: Int) {
                self.host = host
                self.port = port
            }

            func run() {
                var hints = addrinfo()
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG
                var list: UnsafeMutablePointer<addrinfo>?
                let status = getaddrinfo(host, String(port), &hints, &list)
                defer { if let list { freeaddrinfo(list) } }
                guard status == 0 else {
                    let reason = String(cString: gai_strerror(status))
                    answer.withLock { $0 = .failure(HTTPSFailure(.unreachable, "cannot resolve \(host): \(reason)")) }
                    return
                }
                var addresses: [Address] = []
                var entry = list
                while let current = entry?.pointee {
                    if let address = current.ai_addr {
                        let bytes = UnsafeRawBufferPointer(start: address, count: Int(current.ai_addrlen))
                        addresses.append(Address(family: current.ai_family, bytes: Array(bytes)))
                    }
                    entry = current.ai_next
                }
                answer.withLock {
                    $0 =
                        addresses.isEmpty
                        ? .failure(HTTPSFailure(.unreachable, "\(host) has no address")) : .success(addresses)
                }
            }
        }
    }
#endif
