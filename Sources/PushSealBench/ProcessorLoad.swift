#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How busy the machine's processors were between two samples of Linux's /proc/stat, every
/// process counted: what tells a row bound by the processor from one bound by anything else.
struct ProcessorLoad: CustomStringConvertible {
    /// The first line of /proc/stat, summed over every processor, in clock ticks.
    struct Sample {
        /// Idle and waiting for input or output: the processors had nothing to run.
        let idle: Double
        /// Taken by the hypervisor for other machines: the processors were not this machine's.
        let stolen: Double
        /// Every tick.
        let total: Double

        /// Reads /proc/stat now; nil where there is none (macOS) or it cannot be read.
        static func now() -> Sample? {
            readFile("/proc/stat").flatMap(parse)
        }

        /// The `cpu` line of `stat`: user, nice, system, idle, iowait, irq, softirq, steal (guest
        /// time is inside user already, so later fields are not added).
        static func parse(_ stat: [UInt8]) -> Sample? {
            guard let line = stat.split(separator: UInt8(ascii: "\n")).first else { return nil }
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count >= 9, fields[0].elementsEqual("cpu".utf8) else { return nil }
            let ticks = fields[1...8].compactMap { Double(String(decoding: $0, as: UTF8.self)) }
            guard ticks.count == 8 else { return nil }
            return Sample(idle: ticks[3] + ticks[4], stolen: ticks[7], total: ticks.reduce(0, +))
        }
    }

    /// The share of the processors' time spent running something, stolen time included.
    let busy: Double
    /// The share the hypervisor took for other machines.
    let stolen: Double

    /// The load between `start` and `end`; nil when no tick passed.
    init?(from start: Sample, to end: Sample) {
        let total = end.total - start.total
        guard total > 0 else { return nil }
        busy = 1 - (end.idle - start.idle) / total
        stolen = (end.stolen - start.stolen) / total
    }

    /// The processors this machine has online.
    static var processors: Int { max(sysconf(Int32(_SC_NPROCESSORS_ONLN)), 1) }

    /// "97 % busy", and the stolen share when there was any.
    var description: String {
        let stolenPercent = (stolen * 100).rounded()
        return "\(Report.format(busy * 100)) % busy"
            + (stolenPercent > 0 ? " (\(Report.format(stolenPercent)) % stolen by the host)" : "")
    }
}
