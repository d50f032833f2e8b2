internal import Dispatch

extension DispatchTime {
    /// The dispatch time of `instant` on the continuous clock (now, when it has passed): a
    /// deadline kept as an `Instant`, for Dispatch's waits.
    static func at(_ instant: ContinuousClock.Instant) -> DispatchTime {
        let (seconds, attoseconds) = ContinuousClock.now.duration(to: instant).components
        guard seconds >= 0 else { return .now() }
        return .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
