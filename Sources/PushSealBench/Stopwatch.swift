/// Rates measured the same way for the product and for its floor: the best of several rounds,
/// each running the work for a fixed time, with product and floor rounds interleaved so that
/// both see the same machine.
enum Stopwatch {
    /// Operations per second of `work`, the best of `rounds` rounds of `seconds` each.
    static func rate(seconds: Double = 0.3, rounds: Int = 3, _ work: () throws -> Void) rethrows -> Double {
        var best = 0.0
        for _ in 0..<rounds {
            best = max(best, try round(seconds: seconds, work))
        }
        return best
    }

    /// Interleaves rounds of `first` and `second`; returns the best rate of each.
    static func rates(
        seconds: Double = 0.3, rounds: Int = 4, _ first: () throws -> Void, _ second: () throws -> Void
    ) rethrows -> (Double, Double) {
        var best = (0.0, 0.0)
        for _ in 0..<rounds {
            best.0 = max(best.0, try round(seconds: seconds, first))
            best.1 = max(best.1, try round(seconds: seconds, second))
        }
        return best
    }

    private static func round(seconds duration: Double, _ work: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        var elapsed = 0.0
        repeat {
            for _ in 0..<16 { try work() }
            count += 16
            elapsed = seconds(since: start, clock)
        } while elapsed < duration
        return Double(count) / elapsed
    }

    /// Seconds elapsed on `clock` since `start`.
    static func seconds(since start: ContinuousClock.Instant, _ clock: ContinuousClock = ContinuousClock()) -> Double {
        let duration = clock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
