internal import PushSealDelivery
internal import PushSealGatewayModel

extension DeliveryReason {
    /// Why APNs' `result` was not sent: the transport's failure when nothing answered, else APNs'
    /// reason (or, with none, what its text says).
    init(_ result: DeliveryResult, otherwise fallback: String) {
        if let kind = result.transportFailure {
            self = .transport(kind, detail: result.reason ?? "no answer")
        } else {
            self.init(text: result.reason ?? fallback)
        }
    }

    /// Why a push service's `result` was not sent: the transport's failure when nothing answered,
    /// else the service's status and words.
    init(_ result: WebPushResult) {
        if let kind = result.transportFailure {
            self = .transport(kind, detail: result.reason ?? "no answer")
        } else if let reason = result.reason {
            self.init(text: reason)
        } else if let status = result.httpStatus {
            self = .pushService(status: status, words: nil)
        } else {
            self = .unknown("failed")
        }
    }
}
