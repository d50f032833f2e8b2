import PushSealCore

extension GatewayBench {
    /// What one phase of load cost the machine: how busy its processors were while wrk ran, and
    /// the CPU the gateways (and PostgreSQL, when the bench started it) spent a push accepted,
    /// counted until the mock had answered every delivery of the phase.
    ///
    /// A row whose processors were all but fully busy is bound by them: its rate stands beside
    /// ``processorBound``, what the gateways and their database would carry at that cost with
    /// every processor to themselves (wrk and the mock taking nothing).
    struct PhaseCost {
        /// The processors over the load's seconds; nil where /proc/stat cannot be read.
        let processors: ProcessorLoad?
        /// The gateways' CPU a push, in µs.
        let gatewayMicroseconds: Double
        /// PostgreSQL's CPU a push, in µs, all its processes'.
        let databaseMicroseconds: Double?

        /// Pushes a second the machine's processors would carry at this cost.
        var processorBound: Double {
            Double(ProcessorLoad.processors) * 1_000_000 / max(gatewayMicroseconds + (databaseMicroseconds ?? 0), 1)
        }

        /// "the processors 98 % busy; 480 µs of CPU a push and 510 of PostgreSQL's: the
        /// processors' bound 2,020/s (0.91 of it)" for a phase that reached `rate`.
        func line(rate: Double) -> String {
            "    "
                + (processors.map { "the processors \($0); " } ?? "")
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
                    ("cpuMicrosecondsPerPush", Report.number(gatewayMicroseconds)),
                    ("databaseCPUMicrosecondsPerPush", databaseMicroseconds.map { Report.number($0) } ?? .null),
                    ("processors", .number(JSONNumber(ProcessorLoad.processors))),
                    ("processorBoundPerSecond", Report.number(processorBound)),
                ]))
        }
    }

    /// Counts a phase's cost: started before its load, ended once the mock answered its deliveries.
    struct PhaseMeter {
        /// Reads the gateways' CPU seconds so far, and PostgreSQL's (nil when not counted).
        let cpuSeconds: () -> (gateway: Double, database: Double?)
        private var startCPU: (gateway: Double, database: Double?) = (0, nil)
        private var startProcessors: ProcessorLoad.Sample?
        private var loadProcessors: ProcessorLoad?

        /// A meter reading CPU time through `cpuSeconds`.
        init(cpuSeconds: @escaping () -> (gateway: Double, database: Double?)) {
            self.cpuSeconds = cpuSeconds
        }

        /// Before the load starts.
        mutating func start() {
            startCPU = cpuSeconds()
            startProcessors = ProcessorLoad.Sample.now()
        }

        /// As soon as the load ends: the processors' share is measured over the load alone.
        mutating func loadEnded() {
            loadProcessors = startProcessors.flatMap { start in
                ProcessorLoad.Sample.now().flatMap { ProcessorLoad(from: start, to: $0) }
            }
        }

        /// Once every delivery of the phase's `pushes` was answered.
        func cost(pushes: Int) -> PhaseCost {
            let end = cpuSeconds()
            let count = Double(max(pushes, 1))
            return PhaseCost(
                processors: loadProcessors,
                gatewayMicroseconds: (end.gateway - startCPU.gateway) / count * 1_000_000,
                databaseMicroseconds: end.database.flatMap { endDatabase in
                    startCPU.database.map { (endDatabase - $0) / count * 1_000_000 }
                })
        }
    }
}
