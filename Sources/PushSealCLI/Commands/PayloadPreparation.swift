internal import PushSealCore
internal import PushSealEncryptor

/// `--contract FILE`, `--event-id auto` and `--media D.json`: what `encrypt` and `send` do to a
/// payload before sealing it. Shared by the single payload, the batch and the delivery paths.
struct PayloadPreparation: Sendable {
    let contract: PayloadContract?
    let addEventID: Bool
    /// `--media`: the descriptor put into payloads that have no `media` member.
    var media: MediaDescriptor?

    /// Nothing to check or add.
    static let none = PayloadPreparation(contract: nil, addEventID: false)

    /// Loads the contract file named by `options`, and the media descriptor file.
    init(_ options: PayloadOptions, media mediaFile: String? = nil, command: String) throws(UsageError) {
        addEventID = options.addEventID
        media = try mediaFile.map { path throws(UsageError) in
            switch try MediaCommand.descriptor(path) {
            case .success(let descriptor): return descriptor
            case .failure(let failure): throw UsageError("\(command): bad descriptor \(path): \(failure)")
            }
        }
        guard let file = options.file else {
            contract = nil
            return
        }
        do {
            contract = try PayloadContract(json: try InputSource(path: file).readAll())
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("\(command): bad contract \(file): \(KeyFiles.detail(error))")
        }
    }

    private init(contract: PayloadContract?, addEventID: Bool) {
        self.contract = contract
        self.addEventID = addEventID
    }

    /// The payload to seal, and the collapse id the contract's route gives it (if any).
    /// - Parameter media: a job's own `"media"` descriptor, which wins over `--media`.
    /// - Throws: `PushSealError.Code.invalidPayload` naming the JSON path and the contract's code,
    ///   a descriptor that is not one included (at `$.media`).
    func prepare(_ payload: JSONObject, media jobMedia: JSONValue? = nil) throws -> (
        payload: JSONObject, collapseID: String?
    ) {
        var payload = payload
        if let jobMedia {
            // Checked as the payload's `media`, which it becomes.
            payload["media"] = .object(try MediaDescriptor.inPayload(jobMedia).json)
        } else if let media, payload["media"] == nil {
            payload["media"] = .object(media.json)
        }
        guard let contract else {
            return (addEventID ? PayloadContract.completingEventID(payload) : payload, nil)
        }
        let prepared = try contract.prepareForSealing(payload, addingEventID: addEventID)
        return (prepared.payload, prepared.collapseID)
    }
}
