import PushSealCore

// timeval's members are visible through the first module whose headers declare it; with the fast
// mock's C modules in this target, that is nghttp2's.
#if canImport(CNGHTTP2)
    internal import CNGHTTP2
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs other programs (the release CLI, the Python peer) and measures them from outside.
enum ProcessBench {
    /// What a finished child used.
    struct Usage {
        let status: Int32
        let seconds: Double
        /// Peak resident set size in bytes (`ru_maxrss` of this child alone, from `wait4`).
        let peakResidentBytes: Int
        let output: [UInt8]
        /// User and system CPU time of this child, in seconds.
        var cpuSeconds = 0.0
    }

    /// Runs `arguments` with standard input from `inputPath` (or /dev/null) and captures standard output.
    static func run(_ arguments: [String], inputPath: String = "/dev/null", discardOutput: Bool = false) -> Usage {
        let outputPath = "/tmp/pushseal-bench-\(getpid()).out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, discardOutput ? "/dev/null" : outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        guard posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else {
            return Usage(status: -1, seconds: 0, peakResidentBytes: 0, output: [])
        }
        var status: Int32 = 0
        var usage = rusage()
        wait4(pid, &status, 0, &usage)
        let seconds = Stopwatch.seconds(since: start, clock)
        var output: [UInt8] = []
        if !discardOutput, let file = fopen(outputPath, "r") {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = fread(&buffer, 1, buffer.count, file)
                if count == 0 { break }
                output += buffer[0..<count]
            }
            fclose(file)
            unlink(outputPath)
        }
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
        func cpu(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return Usage(
            status: exitStatus, seconds: seconds, peakResidentBytes: Int(usage.ru_maxrss) * 1024, output: output,
            cpuSeconds: cpu(usage.ru_utime) + cpu(usage.ru_stime))
    }

    /// A process started in the background, its standard input a pipe held open until ``stop()``.
    struct Background {
        let pid: pid_t
        let input: Int32

        /// Closes its input and kills it.
        func stop() {
            close(input)
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Starts `arguments` in the background with output on /dev/null and a pipe on standard input
    /// (the mock APNs stops when its input closes).
    static func spawn(_ arguments: [String]) -> Background? {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let started = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ) == 0
        close(pipeEnds[0])
        guard started else {
            close(pipeEnds[1])
            return nil
        }
        return Background(pid: pid, input: pipeEnds[1])
    }

    /// The JSON object a server started in the background writes to `path` once it listens (its
    /// port and certificate), waiting up to 10 s for it; nil (and `server` stopped) when none comes.
    static func readyFile(_ path: String, of server: Background) -> JSONObject? {
        var waited = 0
        while access(path, F_OK) != 0 && waited < 200 {
            usleep(50_000)
            waited += 1
        }
        guard let ready = readFile(path).flatMap({ try? JSONParser.parse($0).objectValue }) else {
            server.stop()
            return nil
        }
        return ready
    }

    /// The CPU time (user and system) a running process has used so far, in seconds (Linux: its
    /// /proc stat; 0 elsewhere).
    static func cpuSeconds(of pid: pid_t) -> Double {
        guard let fields = statFields(of: pid) else { return 0 }
        return clockTicks(fields, 11...12)
    }

    /// The CPU time a server has used so far with every process it started, in seconds: its own,
    /// its ended children's (which it waited for) and its running children's, as PostgreSQL's
    /// postmaster and its backends (Linux; 0 elsewhere).
    static func cpuSecondsWithChildren(of pid: pid_t) -> Double {
        guard let server = statFields(of: pid) else { return 0 }
        var seconds = clockTicks(server, 11...14)
        guard let processes = opendir("/proc") else { return seconds }
        defer { closedir(processes) }
        while let entry = readdir(processes) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let child = pid_t(name), let fields = statFields(of: child), fields.count > 14,
                pid_t(String(decoding: fields[1], as: UTF8.self)) == pid
            else { continue }
            seconds += clockTicks(fields, 11...14)
        }
        return seconds
    }

    /// The fields of /proc/`pid`/stat after the command's name: state, parent, …, then user and
    /// system time at 11 and 12, and the ended children's at 13 and 14.
    private static func statFields(of pid: pid_t) -> [ArraySlice<UInt8>]? {
        guard let stat = readFile("/proc/\(pid)/stat"), let end = stat.lastIndex(of: UInt8(ascii: ")")),
            end + 2 < stat.count
        else { return nil }
        return stat[(end + 2)...].split(separator: UInt8(ascii: " "))
    }

    /// The sum of `fields` in `range`, clock ticks, in seconds.
    private static func clockTicks(_ fields: [ArraySlice<UInt8>], _ range: ClosedRange<Int>) -> Double {
        guard fields.count > range.upperBound else { return 0 }
        let ticks = range.compactMap { Double(String(decoding: fields[$0], as: UTF8.self)) }.reduce(0, +)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The path of this run's temporary file `name`.
    static func temporaryPath(_ name: String) -> String { "/tmp/pushseal-bench-\(getpid())-\(name)" }

    /// Writes `text` to a new temporary file and returns its path.
    static func temporaryFile(_ name: String, _ bytes: [UInt8]) -> String {
        let path = temporaryPath(name)
        if let file = fopen(path, "w") {
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
        }
        return path
    }
}
