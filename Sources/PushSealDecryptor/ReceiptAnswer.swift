#if canImport(Darwin) || PUSHSEAL_TYPECHECK_APPLE
    /// The gateway's answer to a receipt as `URLSessionTransfer` reads it: its status alone. It
    /// stops the transfer once the status came (the body is not read), which is then no failure
    /// of the transport.
    final class ReceiptAnswer: TransferSink, @unchecked Sendable {
        /// The final status, once it came.
        private(set) var status: Int?

        var hasFailed: Bool { status != nil }

        func response(status: Int, length: Int?) -> Bool {
            self.status = status
            return false
        }

        func body(_ bytes: UnsafeRawBufferPointer) -> Bool { false }
    }
#endif
