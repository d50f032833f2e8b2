import PushSealCore

extension GatewayBench {
    /// What one phase of load cost the machine: how busy its processors (and, on SQLite, the
    /// gateway's one writer) were while wrk ran, and the CPU the gateways (and PostgreSQL, when the
    /// bench started it) spent a push accepted, counted until the mock had answered every delivery
    /// of the phase.
    ///
    /// A row whose processors were all but fully busy is bound by them: its rate stands beside
    /// ``processorBound``, what the gateways and their database would carry at that cost with
    /// every processor to themselves (wrk and the mock taking nothing). A row whose SQLite writer
    /// was all but fully busy while the processors were not is bound by that writer.
    struct PhaseCost {
        /// The processors over the load's seconds; nil where /proc/stat cannot be read.
        let processors: ProcessorLoad?
        /// SQLite's writer over the load's seconds (`pushseal_gateway_sqlite_*`); nil on PostgreSQL.
        let writer: WriterLoad?
        /// The gateways' CPU a push, in µs.
        let gatewayMicroseconds: Double
        /// PostgreSQL's CPU a push, in µs, all its processes'.
        let databaseMicroseconds: Double?

        /// Pushes a second the machine's processors would carry at this cost.
        var processorBound: Double {
            Double(ProcessorLoad.processors) * 1_000_000 / max(gatewayMicroseconds + (databaseMicroseconds ?? 0), 1)
        }

        /// "the processors 98 % busy; 480 µs of CPU a push and 510 of PostgreSQL's: the bound of
        /// 2 processors 2020/s (0.91 of it)" for a phase that reached `rate`.
        func line(rate: Double) -> String {
            "    "
                + (processors.map { "the processors \($0); " } ?? "")
                + (writer.map { "SQLite's writer \($0); " } ?? "")
                + "\(Report.format(gatewayMicroseconds)) µs of CPU a push"
                + (databaseMicroseconds.map { " and \(Report.format($0)) of PostgreSQL's" } ?? "")
                + ": the bound of \(ProcessorLoad.processors) processors \(Report.format(processorBound))/s"
                + " (\(Report.format(rate / processorBound, 2)) of it)"
        }

        /// The figures for results.json.
        var json: JSONValue {
            .object(
                JSONObject([
                    ("processorsBusy", processors.map { Report.number($0.busy, 3) } ?? .null),
                    ("processorsStolen", processors.map { Report.number($0.stolen, 3) } ?? .null),
                    ("sqliteWriterBusy", writer.map { Report.number($0.busy, 3) } ?? .null),
                    ("sqliteTransactionsPerCommit", writer.map { Report.number($0.transactionsPerCommit, 1) } ?? .null),
                    ("cpuMicrosecondsPerPush", Report.number(gatewayMicroseconds)),
                    ("databaseCPUMicrosecondsPerPush", databaseMicroseconds.map { Report.number($0) } ?? .null),
                    ("processors", .number(JSONNumber(ProcessorLoad.processors))),
                    ("processorBoundPerSecond", Report.number(processorBound)),
                ]))
        }
    }

    /// How busy SQLite's one writer was over a load, from the gateway's own counters.
    struct WriterLoad: CustomStringConvertible {
        /// The counters at one moment.
        struct Sample {
            /// `pushseal_gateway_sqlite_writer_busy_seconds_total`.
            let busySeconds: Double
            /// `pushseal_gateway_sqlite_commits_total`.
            let commits: Double
            /// `pushseal_gateway_sqlite_write_transactions_total`.
            let transactions: Double
            /// When they were read.
            let instant: ContinuousClock.Instant

            /// The counters in a `/metrics` text; nil when it has none (PostgreSQL).
            init?(metrics: String, at instant: ContinuousClock.Instant) {
                func value(_ name: String) -> Double? {
                    metrics.split(separator: "\n").first { $0.hasPrefix("pushseal_gateway_\(name) ") }
                        .flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
                }
                guard let busy = value("sqlite_writer_busy_seconds_total"), let commits = value("sqlite_commits_total"),
                    let transactions = value("sqlite_write_transactions_total")
                else { return nil }
                (busySeconds, self.commits, self.transactions, self.instant) = (busy, commits, transactions, instant)
            }
        }

        /// The share of the time elapsed the writer spent in write transactions.
        let busy: Double
        /// Write transactions a commit, on average.
        let transactionsPerCommit: Double

        /// The load between `start` and `end`; nil when no time passed.
        init?(from start: Sample, to end: Sample) {
            let elapsed = (end.instant - start.instant).seconds
            guard elapsed > 0 else { return nil }
            busy = (end.busySeconds - start.busySeconds) / elapsed
            transactionsPerCommit = (end.transactions - start.transactions) / max(end.commits - start.commits, 1)
        }

        /// "94 % busy, 12.3 transactions a commit".
        var description: String {
            "\(Report.format(busy * 100)) % busy, \(Report.format(transactionsPerCommit, 1)) transactions a commit"
        }
    }

    /// Counts a phase's cost: made just before its load, ended once the mock answered its deliveries.
    struct PhaseMeter {
        /// Reads the gateways' CPU seconds so far, and PostgreSQL's (nil when not counted).
        private let cpuSeconds: () -> (gateway: Double, database: Double?)
        /// Reads the SQLite writer's counters (nil on PostgreSQL).
        private let writerSample: () -> WriterLoad.Sample?
        private let startCPU: (gateway: Double, database: Double?)
        private let startProcessors: ProcessorLoad.Sample?
        private let startWriter: WriterLoad.Sample?
        private var loadProcessors: ProcessorLoad?
        private var loadWriter: WriterLoad?

        /// Starts counting, reading CPU time through `cpuSeconds` and the writer's counters through
        /// `writerSample`: made just before the load starts.
        init(
            cpuSeconds: @escaping () -> (gateway: Double, database: Double?),
            writerSample: @escaping () -> WriterLoad.Sample?
        ) {
            self.cpuSeconds = cpuSeconds
            self.writerSample = writerSample
            startCPU = cpuSeconds()
            startWriter = writerSample()
            startProcessors = ProcessorLoad.Sample.now()
        }

        /// As soon as the load ends: the processors' and the writer's shares are measured over the
        /// load alone.
        mutating func loadEnded() {
            loadProcessors = startProcessors.flatMap { start in
                ProcessorLoad.Sample.now().flatMap { ProcessorLoad(from: start, to: $0) }
            }
            loadWriter = startWriter.flatMap { start in writerSample().flatMap { WriterLoad(from: start, to: $0) } }
        }

        /// Once every delivery of the phase's `pushes` was answered.
        func cost(pushes: Int) -> PhaseCost {
            let end = cpuSeconds()
            let count = Double(max(pushes, 1))
            return PhaseCost(
                processors: loadProcessors, writer: loadWriter,
                gatewayMicroseconds: (end.gateway - startCPU.gateway) / count * 1_000_000,
                databaseMicroseconds: end.database.flatMap { endDatabase in
                    startCPU.database.map { (endDatabase - $0) / count * 1_000_000 }
                })
        }
    }
}
