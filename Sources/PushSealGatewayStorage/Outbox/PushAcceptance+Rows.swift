package import PushSealGatewayModel

extension PushAcceptance {
    /// What an earlier push's row (`id, request_hash`) with the same key means for a request
    /// hashed `requestHash`: a repeat, or a conflict (a row without a hash is from before hashes
    /// were kept, and counts as a repeat).
    package init(earlier row: [DatabaseValue], requestHash: [UInt8]) {
        let id = row[0].text ?? ""
        guard let stored = row[1].blob, !stored.isEmpty else {
            self = .repeated(id)
            return
        }
        self = stored == requestHash ? .repeated(id) : .conflict(id)
    }
}
