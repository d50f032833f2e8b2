import PushSealBenchStatistics
import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Times the bench's work. A product is judged against its floor in many short rounds, each
/// running both for the same number of operations back to back (in alternating order), so that
/// each round's ratio compares the two under the same machine state; the median of those ratios
/// is steady where the best of a few long rounds was not.
enum Stopwatch {
    /// Compares `product` with `floor` over `rounds` rounds of about `roundSeconds` each (both halves).
    static func compare(
        rounds: Int = 101, roundSeconds: Double = 0.03, _ product: () throws -> Void, _ floor: () throws -> Void
    ) throws -> RateComparison {
        // As many operations per half-round as the floor runs in half the round's time.
        let perHalf = max(1, Int(try calibrate(floor) * roundSeconds / 2))
        var timings: [(product: Double, floor: Double)] = []
        for index in 0..<rounds {
            let productFirst = index % 2 == 0
            let first = try time(perHalf, productFirst ? product : floor)
            let second = try time(perHalf, productFirst ? floor : product)
            timings.append(productFirst ? (first, second) : (second, first))
        }
        return RateComparison(operations: perHalf, rounds: timings)
    }

    /// Microseconds per call of `work`: the median of `rounds` rounds of `roundSeconds`.
    static func microseconds(rounds: Int = 15, roundSeconds: Double = 0.02, _ work: () throws -> Void) rethrows
        -> Double
    {
        let perRound = max(1, Int(try calibrate(work) * roundSeconds))
        var samples: [Double] = []
        for _ in 0..<rounds {
            samples.append(try time(perRound, work) * 1_000_000 / Double(perRound))
        }
        return Spread(samples).median
    }

    /// A first estimate of `work`'s operations per second, after warming it up.
    private static func calibrate(_ work: () throws -> Void) rethrows -> Double {
        var count = 1
        while true {
            let seconds = try time(count, work)
            if seconds >= 0.01 { return Double(count) / seconds }
            count *= 2
        }
    }

    /// Seconds taken by `count` calls of `work`.
    private static func time(_ count: Int, _ work: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<count { try work() }
        return seconds(since: start, clock)
    }

    /// Seconds elapsed on `clock` since `start`.
    static func seconds(since start: ContinuousClock.Instant, _ clock: ContinuousClock = ContinuousClock()) -> Double {
        (clock.now - start).seconds
    }
}
