internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// `POST /v1/receipts/{delivery}` and `POST /v1/receipts` (gateway-v1.md, "Receipts"): what a
/// device showed of a delivery, reported with one of the delivery's capabilities in place of an
/// access token. Every refusal of the delivery or the capability is 404 alike, and a wrong
/// capability locks nothing out: it is 128 random bits, which no number of guesses finds. What is
/// logged never holds a capability.
enum ReceiptEndpoint {
    /// The most receipts one batch carries.
    static let maximumBatch = 100

    /// What every answer under `/v1/receipts` carries for browsers: a service worker on the web
    /// app's origin posts receipts to the gateway's, and reads the status. Any origin may: the
    /// capability in the request is the credential, never a cookie, so a page of another origin
    /// can do nothing with the answer that the capability's holder could not do alone.
    static let crossOriginHeaders = [("Access-Control-Allow-Origin", "*")]

    /// The answer to a browser's preflight (`OPTIONS`) before it posts a receipt with its
    /// `Authorization` and `Content-Type` headers: 204, allowed for a day.
    static let preflight = HTTPResponse(
        status: 204,
        headers: [
            ("Access-Control-Allow-Methods", "POST"), ("Access-Control-Allow-Headers", "Authorization, Content-Type"),
            ("Access-Control-Max-Age", "86400"),
        ], body: [])

    /// `POST /v1/receipts/{delivery}` with `Authorization: Bearer <capability>` and
    /// `{"outcome": "displayed"}` or `{"outcome": "degraded", "reason": R}`: 204 once taken (a
    /// repeat too), 404 for an unknown delivery or a capability that is not its, or its failure
    /// capability reporting `displayed`. `spend` is called with the receipts' count once the body
    /// is read, before the store is.
    /// - Throws: ``APIError``: 400 naming the member at fault, 404, or what `spend` throws (429).
    static func receive(
        delivery: String, _ body: JSONObject, bearer: String?, spend: (Int) throws(APIError) -> Void,
        store: any GatewayStore, routing: WebhookRouting, metrics: Metrics
    ) throws -> HTTPResponse {
        let outcome = try Self.outcome(body, at: .root, known: ["outcome", "reason"])
        try spend(1)
        let time = GatewayClock.milliseconds()
        guard let bearer, let report = report(delivery: delivery, bearer: bearer, outcome),
            case .taken(let changed, let delivery) = try store.recordReceipts([report], at: time, routing: routing)
                .first
        else { throw APIError.notFound("a delivery with receipts") }
        metrics.receiptTaken(delivery, outcome: outcome, changed: changed, at: time)
        return HTTPResponse(status: 204, headers: [], body: [])
    }

    /// `POST /v1/receipts` with `{"receipts": [{"delivery", "capability", "outcome", "reason"}]}`
    /// (1 to ``maximumBatch``), for receipts a device could not send at the time: 200 with
    /// `{"results": [{"status": S}]}`, one per receipt in order, S what the single endpoint would
    /// answer (204 or 404); a refused receipt holds up none of the others. `spend` is called as
    /// ``receive(delivery:_:bearer:spend:store:routing:metrics:)`` calls it.
    /// - Throws: ``APIError`` 400 naming the member at fault when the body is not such a batch, or
    ///   what `spend` throws.
    static func receiveBatch(
        _ body: JSONObject, spend: (Int) throws(APIError) -> Void, store: any GatewayStore, routing: WebhookRouting,
        metrics: Metrics
    ) throws -> HTTPResponse {
        try RequestReader.refuseUnknown(body, ["receipts"], at: .root)
        let path = JSONPath.root.member("receipts")
        guard case .array(let items)? = body["receipts"], (1...maximumBatch).contains(items.count) else {
            throw APIError.invalid(path, "must be an array of 1 to \(maximumBatch) receipts")
        }
        var reports: [ReceiptReport?] = []
        for (index, item) in items.enumerated() {
            let itemPath = path.element(index)
            guard let object = item.objectValue else { throw APIError.invalid(itemPath, "must be an object") }
            let outcome = try Self.outcome(
                object, at: itemPath, known: ["delivery", "capability", "outcome", "reason"])
            guard let delivery = object["delivery"]?.stringValue else {
                throw APIError.invalid(itemPath.member("delivery"), "must be a string")
            }
            guard let capability = object["capability"]?.stringValue else {
                throw APIError.invalid(itemPath.member("capability"), "must be a string")
            }
            reports.append(report(delivery: delivery, bearer: capability, outcome))
        }
        try spend(items.count)
        let time = GatewayClock.milliseconds()
        var recorded = try store.recordReceipts(reports.compactMap { $0 }, at: time, routing: routing).makeIterator()
        let results = reports.map { report -> JSONValue in
            var status = 404
            if let report, case .taken(let changed, let delivery)? = recorded.next() {
                metrics.receiptTaken(delivery, outcome: report.outcome, changed: changed, at: time)
                status = 204
            }
            return .object(JSONObject([("status", .number(JSONNumber(status)))]))
        }
        return .json(200, .object(JSONObject([("results", .array(results))])))
    }

    /// The receipt of `delivery` presenting `bearer`, or nil when either has not the form of one
    /// (which is answered as an unknown delivery is).
    private static func report(delivery: String, bearer: String, _ outcome: ReceiptOutcome) -> ReceiptReport? {
        guard ReceiptTicket.isDeliveryID(delivery), let hash = ReceiptTicket.capabilityHash(bearer: bearer) else {
            return nil
        }
        return ReceiptReport(deliveryID: delivery, capabilityHash: hash, outcome: outcome)
    }

    /// The `outcome` and `reason` members of `object` (at `path`), which has no members but `known`.
    private static func outcome(_ object: JSONObject, at path: JSONPath, known: [String]) throws(APIError)
        -> ReceiptOutcome
    {
        try RequestReader.refuseUnknown(object, known, at: path)
        switch object["outcome"]?.stringValue {
        case "displayed"?:
            guard object["reason"] == nil else {
                throw APIError.invalid(path.member("reason"), "is only for a degraded outcome")
            }
            return .displayed
        case "degraded"?:
            guard let reason = object["reason"]?.stringValue, let outcome = ReceiptOutcome.degraded(reason: reason)
            else {
                throw APIError.invalid(
                    path.member("reason"),
                    "must be one of envelope-v1.md's reasons: "
                        + ReceiptOutcome.degradeReasons.map(\.rawValue).joined(separator: ", "))
            }
            return outcome
        default:
            throw APIError.invalid(path.member("outcome"), "must be \"displayed\" or \"degraded\"")
        }
    }
}
