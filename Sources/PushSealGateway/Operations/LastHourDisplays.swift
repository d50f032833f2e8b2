internal import PushSealCore
internal import PushSealGatewayModel

/// What an app's devices showed of the last hour's deliveries, on the status page (gateway-v1.md,
/// "Status page"): of the deliveries sent in the hour that carry receipts, how many a receipt
/// said were displayed, how many degraded and why, and how many no receipt has reported yet.
struct LastHourDisplays {
    /// The most degrade reasons listed, most frequent first.
    static let topReasonCount = 5
    /// The share of degraded receipts from which the page warns, as the `PushSealDisplaysDegraded`
    /// alert does.
    static let warningShare = 0.1
    /// The fewest receipts a warning is drawn from: one degraded display of three is no trend.
    static let warningMinimum = 20

    /// Deliveries sent in the hour with receipts.
    let sent: Int
    /// Those a receipt said were displayed.
    let displayed: Int
    /// Those a receipt said were degraded, by reason, most frequent first.
    let degraded: [(reason: String, count: Int)]

    /// The figures of `counts` (``OperationsStore/displays(since:in:)``).
    init(_ counts: [DisplayCount]) {
        sent = counts.reduce(0) { $0 + $1.count }
        displayed = counts.filter { $0.outcome == "displayed" }.reduce(0) { $0 + $1.count }
        var reasons: [String: Int] = [:]
        for count in counts where count.outcome == "degraded" { reasons[count.reason ?? "", default: 0] += count.count }
        degraded = reasons.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { ($0.key, $0.value) }
    }

    /// Degraded deliveries, whatever the reason.
    var degradedCount: Int { degraded.reduce(0) { $0 + $1.count } }

    /// `{"sent", "displayed", "degraded", "unreported", "confirmed_share", "top_reasons"}`:
    /// `confirmed_share` is displayed over sent, to three places (null when none was sent), and
    /// `top_reasons` the most frequent degrade reasons, `[{"reason", "count"}]`.
    var json: JSONValue {
        let share = sent == 0 ? nil : JSONNumber((Double(displayed) / Double(sent) * 1_000).rounded() / 1_000)
        return .object(
            JSONObject([
                ("sent", .number(JSONNumber(sent))), ("displayed", .number(JSONNumber(displayed))),
                ("degraded", .number(JSONNumber(degradedCount))),
                ("unreported", .number(JSONNumber(sent - displayed - degradedCount))),
                ("confirmed_share", share.map(JSONValue.number) ?? .null),
                (
                    "top_reasons",
                    .array(
                        degraded.prefix(Self.topReasonCount).map { reason, count in
                            .object(JSONObject([("reason", .string(reason)), ("count", .number(JSONNumber(count)))]))
                        })
                ),
            ]))
    }

    /// A warning for `app` when at least ``warningMinimum`` receipts came and at least
    /// ``warningShare`` of them were degraded; nil otherwise.
    func warning(app: AppID) -> String? {
        let reported = displayed + degradedCount
        guard reported >= Self.warningMinimum, Double(degradedCount) >= Self.warningShare * Double(reported),
            let top = degraded.first
        else { return nil }
        return "app \(app): \(degradedCount) of the last hour's \(reported) receipts say the placeholder was shown "
            + "(most often \(top.reason)): see ios.md, \"Debugging the extension\""
    }
}
