internal import PushSealCore
internal import PushSealEncryptor

/// `--contract FILE` and `--event-id auto`: what `encrypt` and `send` do to a payload before
/// sealing it. Shared by the single payload, the batch and the delivery paths.
struct PayloadPreparation: Sendable {
    let contract: PayloadContract?
    let addEventID: Bool

    /// Nothing to check or add.
    static let none = PayloadPreparation(contract: nil, addEventID: false)

    /// Loads the contract file named by `options`.
    init(_ options: ContractOptions, command: String) throws(UsageError) {
        addEventID = options.addEventID
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
    /// - Throws: `PushSealError.Code.invalidPayload` naming the JSON path and the contract's code.
    func prepare(_ payload: JSONObject) throws -> (payload: JSONObject, collapseID: String?) {
        guard let contract else {
            guard addEventID, payload["event_id"] == nil else { return (payload, nil) }
            var completed = payload
            completed["event_id"] = .string(PayloadContract.randomEventID())
            return (completed, nil)
        }
        let prepared = try contract.prepareForSealing(payload, addingEventID: addEventID)
        return (prepared.payload, prepared.collapseID)
    }
}
