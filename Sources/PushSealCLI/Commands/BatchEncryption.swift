import Dispatch
internal import PushSealCore
internal import PushSealEncryptor

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pushseal encrypt --json-lines`: how a backend in any language seals at volume.
///
/// Input is read in blocks of lines; each block is sealed by `jobs` workers in parallel and
/// written in input order before the next block is read, so memory stays constant for any
/// number of lines. A bad line gives `{"line": N, "error": …}` and never stops the batch.
struct BatchEncryption {
    let arguments: EncryptArguments
    let console: Console
    private let sealer: LineSealer

    /// Lines per worker in one block.
    private static let linesPerWorker = 256

    init(
        arguments: EncryptArguments, defaultRecipient: Recipient?, sender: PrivateKey?,
        preparation: PayloadPreparation, console: Console
    ) {
        self.arguments = arguments
        self.console = console
        self.sealer = LineSealer(
            jobs: JobSealer(
                options: arguments.options, requestDefaults: arguments.requestDefaults,
                defaultRecipient: defaultRecipient, sender: sender, preparation: preparation),
            apnsRequest: arguments.apnsRequest)
    }

    func run() throws(UsageError) -> ExitStatus {
        let jobs = arguments.jobs ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let blockSize = jobs * Self.linesPerWorker
        let showProgress = console.errors.isTerminal
        let started = ContinuousClock.now
        var block: [(number: Int, line: [UInt8]?)] = []
        var totals = (lines: 0, failed: 0)

        func flushBlock() {
            let results = seal(block, jobs: jobs)
            for result in results {
                console.output.writeLine(result.output)
                if !result.succeeded { totals.failed += 1 }
            }
            totals.lines += block.count
            block.removeAll(keepingCapacity: true)
            if showProgress {
                console.errors.writeImmediately("\rpushseal encrypt: \(totals.lines) lines, \(totals.failed) failed")
            }
        }

        try InputSource(path: arguments.input).forEachLine { number, line in
            if let line, line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            block.append((number, line))
            if block.count >= blockSize { flushBlock() }
        }
        if !block.isEmpty { flushBlock() }
        console.output.flush()

        let seconds = (ContinuousClock.now - started).seconds
        let rate = seconds > 0 ? Int(Double(totals.lines) / seconds) : totals.lines
        if showProgress { console.errors.writeImmediately("\r") }
        console.errors.writeLine(
            "pushseal encrypt: \(totals.lines) lines, \(totals.lines - totals.failed) sealed, \(totals.failed) failed "
                + "(\(rate) lines/s, \(jobs) worker\(jobs == 1 ? "" : "s"))")
        return totals.failed == 0 ? .success : .itemsFailed
    }

    /// Seals a block; results come back in input order whatever the worker count.
    private func seal(_ block: [(number: Int, line: [UInt8]?)], jobs: Int) -> [LineResult] {
        let results = ResultSlots(count: block.count)
        let workers = min(jobs, block.count)
        let sealer = self.sealer
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: block.count, by: workers) {
                results.store(sealer.sealLine(number: block[index].number, line: block[index].line), at: index)
            }
        }
        return results.values
    }
}

/// The outcome of one input line.
struct LineResult: Sendable {
    var output: [UInt8] = []
    var succeeded = false
}

/// Seals one batch line; shared by the workers, so it holds only immutable, thread-safe state.
struct LineSealer: Sendable {
    let jobs: JobSealer
    let apnsRequest: Bool

    func sealLine(number: Int, line: [UInt8]?) -> LineResult {
        do {
            let job = try JobSealer.parse(line)
            if apnsRequest {
                return LineResult(output: try jobs.request(for: job, acceptsSealed: false).json, succeeded: true)
            }
            return LineResult(output: try jobs.seal(job).sealed.bytes, succeeded: true)
        } catch {
            let message = (error as? PushSealError)?.detail ?? "\(error)"
            let object = JSONObject([("line", .number(JSONNumber(number))), ("error", .string(message))])
            return LineResult(output: JSONWriter.bytes(.object(object)), succeeded: false)
        }
    }
}

/// One slot per line of a block, written by whichever worker sealed it.
private final class ResultSlots: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<LineResult>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: LineResult())
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    /// Each index is written by exactly one worker, so no two threads touch the same slot.
    func store(_ result: LineResult, at index: Int) {
        slots[index] = result
    }

    var values: [LineResult] { Array(slots) }
}
