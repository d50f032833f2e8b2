/// What a transfer feeds as a response arrives (a media download, fetched content): its final
/// status and declared length, then its body block by block. Either may stop the transfer, and
/// then the sink holds why. The Linux transport and `URLSession` feed the same sinks, so that the
/// same checks run on both.
protocol TransferSink: AnyObject {
    /// Whether the sink stopped the transfer (its own failure says why).
    var hasFailed: Bool { get }
    /// The final response's status and `Content-Length` (nil when chunked or until close).
    /// - Returns: false to stop.
    func response(status: Int, length: Int?) -> Bool
    /// A block of the body.
    /// - Returns: false to stop.
    func body(_ bytes: UnsafeRawBufferPointer) -> Bool
}
