internal import PushSealCore
internal import PushSealDelivery
internal import PushSealEncryptor

/// `pushseal send`: JSON Lines jobs, sealed on the fly (or already sealed), delivered to APNs
/// over HTTP/2 with token authentication; one output line per job, in input order.
enum SendCommand {
    static func run(_ arguments: SendArguments, console: Console) throws(UsageError) -> ExitStatus {
        var authKey = try InputSource(path: arguments.authKeyFile).readAll()
        let tokens: ProviderTokenIssuer
        let client: APNsClient
        do {
            tokens = try ProviderTokenIssuer(
                wipingAuthKeyPEM: &authKey, keyID: arguments.keyID, teamID: arguments.teamID)
            client = try APNsClient(
                endpoint: APNsEndpoint(baseURL: arguments.endpoint), tokens: tokens,
                concurrency: arguments.concurrency, answerTimeout: .seconds(arguments.answerTimeoutSeconds),
                caFile: arguments.caFile)
        } catch {
            throw UsageError("send: \(arguments.authKeyFile): \(error)")
        }
        let jobs = JobSealer(
            options: arguments.options, requestDefaults: arguments.requestDefaults,
            defaultRecipient: try arguments.recipientFile.map { path throws(UsageError) in try KeyFiles.recipient(path)
            },
            sender: try arguments.senderFile.map { path throws(UsageError) in try KeyFiles.privateKey(path) },
            preparation: try PayloadPreparation(
                arguments.contract, media: arguments.contract.mediaFile, command: "send"))
        let source = InputSource(path: arguments.input)
        let descriptor = try source.openDescriptor()
        let items = DeliveryItems(reader: LineReader(descriptor: descriptor), jobs: jobs)

        let clock = ContinuousClock()
        let started = clock.now
        var counts: [DeliveryResult.Status: Int] = [:]
        // Asked once: isatty is a system call, and this runs per job.
        let showProgress = console.errors.isTerminal
        client.deliver(items) { result in
            counts[result.status, default: 0] += 1
            console.output.writeLine(JSONWriter.bytes(.object(result.json)))
            if showProgress, counts.values.reduce(0, +) % 100 == 0 {
                console.errors.writeImmediately("\rpushseal send: \(counts.values.reduce(0, +)) jobs")
            }
        }
        console.output.flush()
        if let failure = items.readFailure { throw UsageError("cannot read \(source.name): \(failure)") }
        let total = counts.values.reduce(0, +)
        let seconds = (clock.now - started).seconds
        if showProgress { console.errors.writeImmediately("\r") }
        console.errors.writeLine(
            "pushseal send: \(total) jobs, \(counts[.sent] ?? 0) sent, \(counts[.unregistered] ?? 0) unregistered, "
                + "\(counts[.failed] ?? 0) failed (\(seconds > 0 ? Int(Double(total) / seconds) : total) jobs/s, "
                + "\(tokens.issuedCount) provider token\(tokens.issuedCount == 1 ? "" : "s"))")
        return total == (counts[.sent] ?? 0) ? .success : .itemsFailed
    }
}

/// The jobs of a JSON Lines input, read and sealed one at a time as the client asks for them.
final class DeliveryItems: Sequence, IteratorProtocol {
    private var reader: LineReader
    private let jobs: JobSealer
    /// A read error that ended the input early.
    private(set) var readFailure: String?

    init(reader: LineReader, jobs: JobSealer) {
        self.reader = reader
        self.jobs = jobs
    }

    func next() -> DeliveryItem? {
        while true {
            let line: LineReader.Line?
            do {
                line = try reader.next()
            } catch {
                readFailure = "\(error)"
                return nil
            }
            guard let line else { return nil }
            if let bytes = line.bytes, bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            return item(line)
        }
    }

    private func item(_ line: LineReader.Line) -> DeliveryItem {
        do {
            let job = try JobSealer.parse(line.bytes)
            guard let token = job["token"]?.stringValue else {
                throw ItemFailure(message: "\"token\" must be a device token in hex")
            }
            let request = try jobs.request(for: job, acceptsSealed: true)
            return .job(
                try DeliveryJob(line: line.number, deviceToken: token, headers: request.headers, body: request.body))
        } catch {
            return .invalid(line: line.number, reason: (error as? PushSealError)?.detail ?? "\(error)")
        }
    }
}
