internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import Synchronization

/// What a token's rate is counted in.
enum RateLimit: String, Sendable, CaseIterable {
    /// Requests under `/v1`.
    case requests
    /// Deliveries pushes create (a push to a user with three devices counts three).
    case deliveries
    /// Messages a Web Push sender posts to one endpoint of the relay (its own setting, in
    /// `relay`; not a token's).
    case messages
    /// Receipts one client address sends (its own setting, in `http`; not a token's).
    case receipts

    /// The limits a token has (configuration `limits`).
    static let tokenLimits: [RateLimit] = [.requests, .deliveries]
}

/// The configuration's `limits` member: each token's rates, in this instance (gateway-v1.md,
/// "Limits"). A rate without its member is not limited.
///
/// ```json
/// "limits": {"requests_per_second": 50, "requests_burst": 100,
///            "deliveries_per_second": 1000, "deliveries_burst": 5000}
/// ```
public struct RateLimitSettings: Sendable {
    /// Each limited rate: per second, and the burst (what a token may spend at once after a rest).
    let rates: [RateLimit: (perSecond: Double, burst: Int)]

    /// No limit.
    static let unlimited = RateLimitSettings(rates: [:])

    /// Only `messages`, at `perSecond` with `burst`: a relay endpoint's rate.
    static func messages(perSecond: Int, burst: Int) -> RateLimitSettings {
        RateLimitSettings(rates: [.messages: (Double(perSecond), burst)])
    }

    /// Only `receipts`, at `perSecond` with `burst`: a client address's rate.
    static func receipts(perSecond: Int, burst: Int) -> RateLimitSettings {
        RateLimitSettings(rates: [.receipts: (Double(perSecond), burst)])
    }

    private init(rates: [RateLimit: (perSecond: Double, burst: Int)]) { self.rates = rates }

    /// Reads the `limits` member `value` (at `path`): for each of `requests` and `deliveries`,
    /// `_per_second` (1 to 1,000,000) and `_burst` (1 to 1,000,000; the rate by default).
    init(_ value: JSONValue?, at path: JSONPath) throws(GatewayError) {
        guard let value else {
            self = .unlimited
            return
        }
        guard let object = value.objectValue else { throw GatewayConfiguration.invalid(path, "must be an object") }
        let names = RateLimit.tokenLimits.flatMap { ["\($0.rawValue)_per_second", "\($0.rawValue)_burst"] }
        try GatewayConfiguration.refuseUnknown(object, names, at: path)
        var rates: [RateLimit: (perSecond: Double, burst: Int)] = [:]
        for limit in RateLimit.tokenLimits {
            let rate = try GatewayConfiguration.integer(
                object, "\(limit.rawValue)_per_second", in: 1...1_000_000, at: path)
            let burst = try GatewayConfiguration.integer(object, "\(limit.rawValue)_burst", in: 1...1_000_000, at: path)
            guard let rate else {
                if burst != nil {
                    throw GatewayConfiguration.invalid(
                        path.member("\(limit.rawValue)_burst"), "needs \(limit.rawValue)_per_second")
                }
                continue
            }
            rates[limit] = (Double(rate), burst ?? rate)
        }
        self.rates = rates
    }
}

/// Token buckets, one per key (an access token, a relay endpoint, a client address) and limited
/// rate: a key may spend up to its burst at once, and regains its rate per second. Kept in memory
/// by each instance, so that with several instances behind a load balancer a key's rate is at
/// most the instances' count times the configured one. A bucket that has filled again is the same
/// as none, and is dropped when the buckets grow, so that keys a client chooses (addresses) hold
/// no memory once they rest.
final class RateLimiter: Sendable {
    private struct Bucket {
        var level: Double
        var updated: ContinuousClock.Instant
    }

    private struct BucketKey: Hashable {
        let limit: RateLimit
        let token: String
    }

    private let settings: RateLimitSettings
    private let buckets = Mutex<(all: [BucketKey: Bucket], pruneAt: Int)>(([:], minimumPruneCount))
    /// How many buckets there are before the full ones are first dropped.
    private static let minimumPruneCount = 4_096
    private let clock = ContinuousClock()
    private let onRefusal: @Sendable (RateLimit) -> Void

    /// A limiter with `settings`' rates, which calls `onRefusal` with the limit of each 429 (the
    /// metrics count them).
    init(_ settings: RateLimitSettings, onRefusal: @escaping @Sendable (RateLimit) -> Void = { _ in }) {
        self.settings = settings
        self.onRefusal = onRefusal
    }

    /// Spends `cost` of `token`'s `limit`, or throws: 429 `rate-limited` with the seconds until it
    /// could be spent, or (deliveries) 422 when `cost` is above the burst, which no wait allows.
    func spend(_ cost: Int, of limit: RateLimit, token: String) throws(APIError) {
        guard let (rate, burst) = settings.rates[limit], cost > 0 else { return }
        if cost > burst { throw APIError.overBurst(cost, burst: burst) }
        let now = clock.now
        let wait: Double? = buckets.withLock { buckets in
            let key = BucketKey(limit: limit, token: token)
            var bucket = buckets.all[key] ?? Bucket(level: Double(burst), updated: now)
            bucket.level = Self.level(of: bucket, at: now, rate: rate, burst: burst)
            bucket.updated = now
            defer {
                buckets.all[key] = bucket
                if buckets.all.count >= buckets.pruneAt { prune(&buckets, at: now) }
            }
            guard bucket.level >= Double(cost) else { return (Double(cost) - bucket.level) / rate }
            bucket.level -= Double(cost)
            return nil
        }
        if let wait {
            onRefusal(limit)
            throw APIError.rateLimited(limit, retryAfter: max(1, Int(wait.rounded(.up))))
        }
    }

    /// Gives back `cost` of `token`'s `limit`, spent on a push that was not stored (a repeat).
    func refund(_ cost: Int, of limit: RateLimit, token: String) {
        guard let (_, burst) = settings.rates[limit], cost > 0 else { return }
        buckets.withLock { buckets in
            let key = BucketKey(limit: limit, token: token)
            guard var bucket = buckets.all[key] else { return }
            bucket.level = min(Double(burst), bucket.level + Double(cost))
            buckets.all[key] = bucket
        }
    }

    /// How many buckets are kept now (the tests watch full ones go).
    var bucketCount: Int { buckets.withLock { $0.all.count } }

    /// Drops the buckets that are full again at `now`, and waits to do it again until the rest
    /// have doubled: amortized, each spend pays for a constant part of the pruning.
    private func prune(_ buckets: inout (all: [BucketKey: Bucket], pruneAt: Int), at now: ContinuousClock.Instant) {
        buckets.all = buckets.all.filter { key, bucket in
            guard let (rate, burst) = settings.rates[key.limit] else { return false }
            return Self.level(of: bucket, at: now, rate: rate, burst: burst) < Double(burst)
        }
        buckets.pruneAt = max(Self.minimumPruneCount, buckets.all.count * 2)
    }

    /// What `bucket` holds at `now`, having regained `rate` per second up to `burst`.
    private static func level(of bucket: Bucket, at now: ContinuousClock.Instant, rate: Double, burst: Int) -> Double {
        min(Double(burst), bucket.level + bucket.updated.duration(to: now).seconds * rate)
    }
}
