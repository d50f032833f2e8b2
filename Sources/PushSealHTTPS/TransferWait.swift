#if canImport(CLibSSL)
    import Glibc

    /// How long a transfer may wait: until `deadline`, or until `cancelled` says stop. Every wait on
    /// the network goes through ``poll(_:for:)``, in slices short enough to notice cancellation.
    package struct TransferWait {
        /// When the transfer gives up.
        package let deadline: ContinuousClock.Instant
        /// Polled between slices; true stops the transfer.
        package let cancelled: () -> Bool

        /// A wait that ends at `deadline` or when `cancelled` returns true.
        package init(deadline: ContinuousClock.Instant, cancelled: @escaping () -> Bool) {
            self.deadline = deadline
            self.cancelled = cancelled
        }

        /// This wait, ending at most `limit` from now.
        func limited(to limit: Duration) -> TransferWait {
            TransferWait(deadline: min(deadline, ContinuousClock.now + limit), cancelled: cancelled)
        }

        /// Throws `timeout` once the deadline has passed or the caller cancelled.
        package func check() throws(HTTPSFailure) {
            guard ContinuousClock.now < deadline, !cancelled() else {
                throw HTTPSFailure(.timeout, "the transfer did not finish in time")
            }
        }

        /// Waits until `socket` is ready for `events` (POLLIN or POLLOUT).
        func poll(_ socket: Int32, for events: Int16) throws(HTTPSFailure) {
            while true {
                try check()
                var entry = pollfd(fd: socket, events: events, revents: 0)
                let ready = Glibc.poll(&entry, 1, Self.sliceMilliseconds)
                if ready > 0 { return }
                if ready < 0 && errno != EINTR {
                    throw HTTPSFailure(.unreachable, "poll failed: \(String(cString: strerror(errno)))")
                }
            }
        }

        /// Milliseconds between two looks at the deadline and the cancellation flag.
        static let sliceMilliseconds: Int32 = 50
    }
#endif
