internal import PushSealCore
internal import PushSealEncryptor

/// `pushseal encrypt`: one payload, or a JSON Lines batch.
enum EncryptCommand {
    static func run(_ arguments: EncryptArguments, console: Console) throws(UsageError) -> ExitStatus {
        let sender = try arguments.senderFile.map { path throws(UsageError) in try KeyFiles.privateKey(path) }
        let recipient = try arguments.recipientFile.map { path throws(UsageError) in try KeyFiles.recipient(path) }
        let preparation = try PayloadPreparation(
            arguments.contract, media: arguments.contract.mediaFile, command: "encrypt")
        if arguments.jsonLines {
            return try BatchEncryption(
                arguments: arguments, defaultRecipient: recipient, sender: sender, preparation: preparation,
                console: console
            )
            .run()
        }
        guard let recipient else { throw UsageError("encrypt: --to is required") }
        let encryptor: Encryptor
        do {
            encryptor = try Encryptor(recipient: recipient, sender: sender, options: arguments.options)
        } catch {
            throw UsageError("encrypt: \(KeyFiles.detail(error))")
        }
        let source = InputSource(path: arguments.input)
        let bytes = try source.readAll()
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw UsageError("encrypt: \(source.name) is not JSON: \(error)")
        }
        do {
            guard let payload = value.objectValue else {
                throw PushSealError(.invalidPayload, "$ must be a JSON object, not \(value.typeName)")
            }
            let prepared = try preparation.prepare(payload)
            let sealed = try encryptor.seal(prepared.payload)
            if sealed.bodyTruncated {
                console.errors.writeLine(
                    "pushseal encrypt: the alert body was shortened to fit \(arguments.options.pushType.sizeLimit) bytes"
                )
            }
            if arguments.apnsRequest {
                var options = arguments.requestDefaults
                if options.collapseID == nil { options.collapseID = prepared.collapseID }
                let request = try APNsRequest(payload: sealed, pushType: arguments.options.pushType, options: options)
                console.output.writeLine(request.json)
            } else {
                console.output.writeLine(sealed.bytes)
            }
            return .success
        } catch {
            console.errors.writeLine("pushseal encrypt: \(source.name): \(KeyFiles.detail(error))")
            return .itemsFailed
        }
    }
}
