/// How one worker sends its kind of delivery (APNs, Web Push): the transport, its connections
/// and the meaning of its answers. A worker owns its sender, and only it calls it.
protocol OutboxSender {
    /// Sends `batch` and calls `record` exactly once per delivery, with its outcome and the
    /// requests made for it so far (from any thread); returns once every delivery is recorded.
    mutating func send(
        _ batch: [OutboxDelivery],
        record: @escaping @Sendable (_ delivery: OutboxDelivery, _ outcome: DeliveryOutcome, _ attempts: Int) -> Void)
}
