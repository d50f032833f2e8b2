#if canImport(CNGHTTP2) && canImport(CLibSSL)
    internal import CNGHTTP2
    internal import CLibSSL
    import Glibc

    /// The bench's own mock APNs, built so that it is never what a delivery bench measures: one
    /// thread, one `poll` loop over every connection, TLS by libssl and HTTP/2 by nghttp2's server
    /// session, and the answers kept in one first-in-first-out queue per scripted delay (every
    /// answer of a queue is due in the order it was asked), so that nothing is sorted or scanned.
    ///
    /// It checks what the bench needs checked (a `POST` to `/3/device/TOKEN` with a provider token;
    /// 403 otherwise), not what the strict Python mock checks (the token's signature, the
    /// payload): the correctness tests keep that one. It runs as `PushSealBench mock-apns …`,
    /// stops when its standard input closes, and rewrites a small status file (requests answered,
    /// the most streams open at once) every 20 ms, which the bench reads instead of asking the
    /// gateway how far it got.
    final class FastMockAPNs {
        /// The command line: `mock-apns --certificate PEM --private-key PEM --ready PATH
        /// --status PATH [--delay-ms N] [--max-concurrent-streams N] [--answer RULE]…`.
        struct Options {
            var certificate = ""
            var privateKey = ""
            var ready = ""
            var status = ""
            var delayMilliseconds = 0
            var maximumConcurrentStreams = 100
            var answers: [String] = []
            /// How many request bodies to keep, and the file they are written to (JSON Lines, each
            /// body as it came) once that many came: what a bench reads receipt tickets from.
            var keepBodies = 0
            var bodiesPath = ""

            /// Reads `arguments`; nil, with a message on standard error, when one is wrong.
            init?(_ arguments: ArraySlice<String>) {
                var iterator = arguments.makeIterator()
                while let flag = iterator.next() {
                    guard let value = iterator.next() else {
                        printError("mock-apns: \(flag) needs a value\n")
                        return nil
                    }
                    switch flag {
                    case "--certificate": certificate = value
                    case "--private-key": privateKey = value
                    case "--ready": ready = value
                    case "--status": status = value
                    case "--delay-ms": delayMilliseconds = Int(value) ?? -1
                    case "--max-concurrent-streams": maximumConcurrentStreams = Int(value) ?? 0
                    case "--answer": answers.append(value)
                    case "--keep-bodies": keepBodies = Int(value) ?? -1
                    case "--bodies": bodiesPath = value
                    default:
                        printError("mock-apns: unknown option \(flag)\n")
                        return nil
                    }
                }
                guard !certificate.isEmpty, !privateKey.isEmpty, !ready.isEmpty, !status.isEmpty,
                    delayMilliseconds >= 0, (1...10_000).contains(maximumConcurrentStreams),
                    (0...1_000_000).contains(keepBodies), keepBodies == 0 || !bodiesPath.isEmpty
                else {
                    printError("mock-apns: --certificate, --private-key, --ready and --status are required\n")
                    return nil
                }
            }
        }

        /// An answer waiting for its time.
        private struct Pending {
            let connection: MockAPNsConnection
            let streamID: Int32
            let due: UInt64
        }

        /// The default answer first, then the scripted ones in the order given.
        private let answers: [ScriptedAnswer]
        /// One queue per answer: each has one delay, so each is in due order.
        private var queues: [[Pending]]
        private var queueStarts: [Int]
        private let maximumConcurrentStreams: Int
        private var answered = 0
        private var openStreams = 0
        private var mostOpen = 0
        /// The request bodies still to keep, those kept, and where they go.
        private(set) var bodiesWanted: Int
        private var keptBodies: [UInt8] = []
        private let bodiesPath: String

        private init(options: Options, answers: [ScriptedAnswer]) {
            self.answers = answers
            queues = Array(repeating: [], count: answers.count)
            queueStarts = Array(repeating: 0, count: answers.count)
            maximumConcurrentStreams = options.maximumConcurrentStreams
            bodiesWanted = options.keepBodies
            bodiesPath = options.bodiesPath
        }

        /// Keeps `body`, a whole request's, while more are wanted; once the last wanted came,
        /// writes them all to the bodies file.
        func keep(_ body: [UInt8]) {
            guard bodiesWanted > 0 else { return }
            keptBodies += body + [0x0A]
            bodiesWanted -= 1
            if bodiesWanted == 0 {
                _ = Self.writeAtomically(bodiesPath, keptBodies)
                keptBodies = []
            }
        }

        /// Runs the mock until its standard input closes; the process's exit status.
        static func main(_ arguments: ArraySlice<String>) -> Int32 {
            guard let options = Options(arguments) else { return 2 }
            var answers = [ScriptedAnswer(delayMilliseconds: options.delayMilliseconds)]
            for rule in options.answers {
                guard let answer = ScriptedAnswer(rule, defaultDelayMilliseconds: options.delayMilliseconds) else {
                    printError("mock-apns: --answer \(rule) is not PREFIX=STATUS[:REASON][@MILLISECONDS]\n")
                    return 2
                }
                answers.append(answer)
            }
            signal(SIGPIPE, SIG_IGN)
            guard let context = SSL_CTX_new(TLS_server_method()),
                SSL_CTX_use_certificate_chain_file(context, options.certificate) == 1,
                SSL_CTX_use_PrivateKey_file(context, options.privateKey, SSL_FILETYPE_PEM) == 1
            else {
                printError("mock-apns: the certificate or its key cannot be loaded\n")
                return 1
            }
            SSL_CTX_set_alpn_select_cb(context, selectHTTP2, nil)
            guard let (listener, port) = listen() else {
                printError("mock-apns: cannot listen on 127.0.0.1\n")
                return 1
            }
            let ready = #"{"port":\#(port),"certificate":"\#(options.certificate)"}"#
            guard writeAtomically(options.ready, Array(ready.utf8)) else { return 1 }
            FastMockAPNs(options: options, answers: answers).serve(
                listener: listener, context: context, statusPath: options.status)
            return 0
        }

        /// The index of the answer for a device token: the first rule whose prefix it has, else 0.
        func answerIndex(forToken token: UnsafeBufferPointer<UInt8>) -> Int {
            for index in answers.indices.dropFirst() where answers[index].matches(token) { return index }
            return 0
        }

        /// A request opened a stream.
        func streamOpened() {
            openStreams += 1
            mostOpen = max(mostOpen, openStreams)
        }

        /// A stream closed.
        func streamClosed() { openStreams -= 1 }

        /// A whole request arrived: its answer goes into the queue of its delay.
        func requestEnded(on connection: MockAPNsConnection, streamID: Int32, answer: Int) {
            let due = Self.nanoseconds() + UInt64(answers[answer].delayMilliseconds) * 1_000_000
            queues[answer].append(Pending(connection: connection, streamID: streamID, due: due))
        }

        private func serve(listener: Int32, context: OpaquePointer, statusPath: String) {
            var connections: [MockAPNsConnection] = []
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
            var lastStatus: UInt64 = 0
            var descriptors: [pollfd] = []
            while true {
                descriptors.removeAll(keepingCapacity: true)
                descriptors.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0))
                descriptors.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
                for connection in connections {
                    descriptors.append(pollfd(fd: connection.descriptor, events: connection.pollEvents, revents: 0))
                }
                _ = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds())
                // The bench closed our input: it is done.
                if descriptors[0].revents != 0 { return }
                for (index, connection) in connections.enumerated()
                where descriptors[index + 2].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    connection.readAvailable(into: buffer)
                }
                if descriptors[1].revents & Int16(POLLIN) != 0 {
                    while true {
                        let socket = accept(listener, nil, nil)
                        guard socket >= 0 else { break }
                        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
                        var yes: Int32 = 1
                        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
                        if let connection = MockAPNsConnection(
                            descriptor: socket, context: context, server: self,
                            maximumConcurrentStreams: maximumConcurrentStreams)
                        {
                            connections.append(connection)
                            connection.flush()
                        } else {
                            close(socket)
                        }
                    }
                }
                answerDue()
                for connection in connections { connection.flush() }
                connections.removeAll { $0.isClosed }
                let now = Self.nanoseconds()
                if now - lastStatus > 20_000_000 {
                    lastStatus = now
                    let status = #"{"answered":\#(answered),"most_open":\#(mostOpen)}"#
                    _ = Self.writeAtomically(statusPath, Array(status.utf8))
                }
            }
        }

        /// Submits every answer whose time has come.
        private func answerDue() {
            let now = Self.nanoseconds()
            let milliseconds = Int64(Self.wallNanoseconds() / 1_000_000)
            for index in queues.indices {
                var start = queueStarts[index]
                while start < queues[index].count, queues[index][start].due <= now {
                    let pending = queues[index][start]
                    answered += 1
                    pending.connection.answer(
                        streamID: pending.streamID, with: answers[index], apnsID: Self.apnsID(answered),
                        at: milliseconds)
                    start += 1
                }
                if start == queues[index].count {
                    queues[index].removeAll(keepingCapacity: true)
                    start = 0
                } else if start > 4_096 {
                    queues[index].removeFirst(start)
                    start = 0
                }
                queueStarts[index] = start
            }
        }

        /// Until the next answer is due (at most 20 ms, for the status file).
        private func timeoutMilliseconds() -> Int32 {
            let now = Self.nanoseconds()
            var timeout: UInt64 = 20
            for index in queues.indices where queueStarts[index] < queues[index].count {
                let due = queues[index][queueStarts[index]].due
                timeout = min(timeout, due > now ? (due - now + 999_999) / 1_000_000 : 0)
            }
            return Int32(timeout)
        }

        /// An `apns-id` for a request that named none, made from a counter: unique within the run, and
        /// in UUID form.
        private static func apnsID(_ count: Int) -> String {
            let hex = String(count, radix: 16)
            return "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
        }

        /// The monotonic clock, in nanoseconds.
        private static func nanoseconds() -> UInt64 {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
        }

        /// The wall clock, in nanoseconds (APNs' `timestamp` of a 410).
        private static func wallNanoseconds() -> UInt64 {
            var time = timespec()
            clock_gettime(CLOCK_REALTIME, &time)
            return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
        }

        /// A non-blocking socket listening on 127.0.0.1 at a port the system chose, and that port.
        private static func listen() -> (Int32, Int)? {
            let socket = Glibc.socket(
                AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard socket >= 0 else { return nil }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socket, $0, length) == 0 && Glibc.listen(socket, 1_024) == 0
                        && getsockname(socket, $0, &length) == 0
                }
            }
            guard bound else {
                close(socket)
                return nil
            }
            return (socket, Int(UInt16(bigEndian: address.sin_port)))
        }

        /// Writes `bytes` to `path` through a temporary file and a rename, so a reader never sees
        /// half of it.
        private static func writeAtomically(_ path: String, _ bytes: [UInt8]) -> Bool {
            let temporary = path + ".tmp"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return false }
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            return written == bytes.count && rename(temporary, path) == 0
        }

        /// Chooses `h2` from the client's ALPN list, and refuses a client that does not offer it.
        private static let selectHTTP2:
            @convention(c) (
                OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
                UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
            ) -> Int32 = { _, out, outLength, input, inputLength, _ in
                guard let out, let outLength, let input else { return SSL_TLSEXT_ERR_ALERT_FATAL }
                var chosen: UnsafeMutablePointer<UInt8>?
                var chosenLength: UInt8 = 0
                let found = nghttp2_select_next_protocol(&chosen, &chosenLength, input, inputLength)
                guard found == 1, let chosen else { return SSL_TLSEXT_ERR_ALERT_FATAL }
                out.pointee = UnsafePointer(chosen)
                outLength.pointee = chosenLength
                return SSL_TLSEXT_ERR_OK
            }
    }
#endif
