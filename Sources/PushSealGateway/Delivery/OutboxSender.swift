internal import PushSealGatewayModel

/// How one worker sends its kind of delivery (APNs, Web Push): the transport, its connections
/// and the meaning of its answers. A worker owns its sender, and only it calls it.
protocol OutboxSender {
    /// Sends what `feed` hands out until it has no more, and calls `record` exactly once per
    /// delivery taken, with its outcome and the requests made for it so far (from any thread);
    /// returns once every delivery taken is recorded. A delivery taken that no request could be
    /// made for now (its host cannot be reached) may go unrecorded: it stays leased, and is
    /// claimed again when the lease ends.
    mutating func send(
        _ feed: DeliveryFeed,
        record: @escaping @Sendable (_ delivery: OutboxDelivery, _ outcome: DeliveryOutcome, _ attempts: Int) -> Void)
}
