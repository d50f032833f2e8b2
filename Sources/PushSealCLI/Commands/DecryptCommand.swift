internal import PushSealCore
internal import PushSealDecryptor
internal import PushSealPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pushseal decrypt`: the extension's logic on captured payloads, for debugging and support.
enum DecryptCommand {
    /// The member `xcrun simctl push` adds to `.apns` files; it is not part of the push.
    static let simulatorTargetMember = "Simulator Target Bundle"

    static func run(_ arguments: DecryptArguments, console: Console) throws(UsageError) -> ExitStatus {
        let contract = try PayloadPreparation(PayloadOptions(file: arguments.contract), command: "decrypt").contract
        var media: MediaFetcher?
        if let mediaDirectory = arguments.mediaDirectory {
            var info = stat()
            guard stat(mediaDirectory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw UsageError("decrypt: --media-dir \(mediaDirectory) is not a directory")
            }
            media = MediaFetcher(
                directory: mediaDirectory, caFile: arguments.caFile, allowsLocalDestinations: arguments.allowLocalMedia)
        }
        let store = FileKeyStore(directory: arguments.store)
        do {
            _ = try store.entries()
        } catch {
            console.errors.writeLine(
                "pushseal decrypt: \(KeyFiles.detail(error)); sealed payloads degrade with key-store-unavailable")
        }
        var ledger: EventLedger?
        if arguments.record {
            let recording = EventLedger(path: store.ledger.path) { movedTo in
                Descriptor.writeLine(
                    2, "pushseal decrypt: the event ledger was corrupt; moved it to \(movedTo) and started a fresh one")
            }
            do {
                try recording.check()
                ledger = recording
            } catch {
                console.errors.writeLine(
                    "pushseal decrypt: \(error); nothing is recorded and duplicates are not detected")
            }
        }
        let decryptor = Decryptor(
            keyStore: store, ledger: ledger, contract: contract, media: media,
            fetcher: ContentFetcher(caFile: arguments.caFile, allowsLocalDestinations: arguments.allowLocalFetch))
        let source = InputSource(path: arguments.input)
        let receipts =
            arguments.receipt
            ? ReceiptPoster(caFile: arguments.caFile, allowsLocalDestinations: arguments.allowLocalFetch) : nil
        /// The output object of `result`, its receipt posted when asked: with whether it failed.
        func report(_ result: DecryptionResult) -> (object: JSONObject, failed: Bool) {
            var object = result.json
            var failed = Self.failed(result)
            if let receipts {
                let posted = Self.postReceipt(of: result, with: receipts)
                object["receipt"] = posted.json
                failed = failed || posted.failed
            }
            return (object, failed)
        }

        if !arguments.jsonLines {
            let bytes = try source.readAll()
            let payload: JSONObject
            do {
                payload = try Self.payload(bytes)
            } catch {
                throw UsageError("decrypt: \(source.name): \(error.message)")
            }
            let reported = report(decryptor.open(payload))
            console.output.writeLine(JSONWriter.bytes(.object(reported.object)))
            return reported.failed ? .itemsFailed : .success
        }

        var failures = 0
        try source.forEachLine { number, line in
            if let line, line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            do {
                guard let line else { throw ItemFailure(message: "the line is longer than 16 MiB") }
                let reported = report(decryptor.open(try Self.payload(line)))
                if reported.failed { failures += 1 }
                console.output.writeLine(JSONWriter.bytes(.object(reported.object)))
            } catch {
                failures += 1
                let object = JSONObject([("line", .number(JSONNumber(number))), ("error", .string("\(error)"))])
                console.output.writeLine(JSONWriter.bytes(.object(object)))
            }
        }
        return failures == 0 ? .success : .itemsFailed
    }

    /// True for a result that counts as a failed item (exit status 1): a degraded notification,
    /// or media that could not be attached.
    static func failed(_ result: DecryptionResult) -> Bool {
        result.status == .degraded || result.mediaFailure != nil
    }

    /// How long a receipt may take: the gateway answers at once, or is not there.
    static let receiptTimeout = Duration.seconds(10)

    /// Posts the receipt of `result` with `poster`: the output's `receipt` member, and whether
    /// posting failed. The member is null for a payload that carries no ticket (a gateway without
    /// receipts, a push left out of them) or was never sealed; else `{"outcome", "reason"?,
    /// "posted": true}`, or `"posted": false` with the `error`.
    static func postReceipt(of result: DecryptionResult, with poster: ReceiptPoster) -> (
        json: JSONValue, failed: Bool
    ) {
        guard let ticket = result.receipt, let outcome = result.receiptOutcome else { return (.null, false) }
        var json = outcome.json
        do {
            try poster.post(outcome, with: ticket, deadline: .now + receiptTimeout)
            json["posted"] = .bool(true)
            return (.object(json), false)
        } catch {
            json["posted"] = .bool(false)
            json["error"] = .string(error.detail)
            return (.object(json), true)
        }
    }

    /// Parses a payload (or an `.apns` file) into the notification's `userInfo`.
    static func payload(_ bytes: [UInt8]) throws(ItemFailure) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw ItemFailure(message: "not JSON: \(error)")
        }
        guard var payload = value.objectValue else {
            throw ItemFailure(message: "a payload must be a JSON object, not \(value.typeName)")
        }
        payload[simulatorTargetMember] = nil
        return payload
    }
}
