#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs work with the calling thread pinned to one core, which steadies the suites' ratios here
/// (the medians of three runs moved by up to 0.05 unpinned, by 0.02 pinned). Child processes
/// inherit a thread's affinity, so the old one comes back before any process is started.
///
/// `sched_setaffinity` is a GNU extension that Swift's Glibc module does not declare, so it is
/// looked up by name; where it is missing (not Linux), the work runs unpinned.
enum CorePinning {
    private typealias Affinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer?) -> Int32

    /// Runs `work` on the machine's last core (away from core 0, where interrupts tend to land);
    /// passes whether the pinning took.
    static func onOneCore<T>(_ work: (_ pinned: Bool) throws -> T) rethrows -> T {
        #if canImport(Glibc)
            let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
            guard cores > 1, cores <= 1024, let program = dlopen(nil, RTLD_NOW),
                let getter = dlsym(program, "sched_getaffinity"), let setter = dlsym(program, "sched_setaffinity")
            else { return try work(false) }
            let get = unsafeBitCast(getter, to: Affinity.self)
            let set = unsafeBitCast(setter, to: Affinity.self)
            // A cpu_set_t: 1024 bits.
            var saved = [UInt8](repeating: 0, count: 128)
            var single = [UInt8](repeating: 0, count: 128)
            single[(cores - 1) / 8] = UInt8(1 << ((cores - 1) % 8))
            guard saved.withUnsafeMutableBytes({ get(0, 128, $0.baseAddress) }) == 0,
                single.withUnsafeMutableBytes({ set(0, 128, $0.baseAddress) }) == 0
            else { return try work(false) }
            defer { _ = saved.withUnsafeMutableBytes { set(0, 128, $0.baseAddress) } }
            return try work(true)
        #else
            return try work(false)
        #endif
    }
}
