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

        if !arguments.jsonLines {
            let bytes = try source.readAll()
            let payload: JSONObject
            do {
                payload = try Self.payload(bytes)
            } catch {
                throw UsageError("decrypt: \(source.name): \(error.message)")
            }
            let result = decryptor.open(payload)
            console.output.writeLine(JSONWriter.bytes(.object(result.json)))
            return Self.failed(result) ? .itemsFailed : .success
        }

        var failures = 0
        try source.forEachLine { number, line in
            if let line, line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            do {
                guard let line else { throw ItemFailure(message: "the line is longer than 16 MiB") }
                let result = decryptor.open(try Self.payload(line))
                if Self.failed(result) { failures += 1 }
                console.output.writeLine(JSONWriter.bytes(.object(result.json)))
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
