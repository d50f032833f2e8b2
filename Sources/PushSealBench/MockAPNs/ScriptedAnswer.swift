/// What the bench's mock APNs answers a request whose device token starts with ``prefix``:
/// `--answer PREFIX=STATUS[:REASON][@MILLISECONDS]`, for instance `dead=410:Unregistered` or
/// `5ad=503:ServiceUnavailable@2000`. Requests no rule matches get the default answer, 200 after
/// the configured delay.
struct ScriptedAnswer {
    /// The device tokens it applies to, as bytes of their hexadecimal text.
    let prefix: [UInt8]
    /// The HTTP status.
    let status: Int
    /// APNs' `reason`, sent in a JSON body with any status but 200.
    let reason: String?
    /// How late the answer comes, in milliseconds.
    let delayMilliseconds: Int

    /// The default answer: 200, `delayMilliseconds` late.
    init(delayMilliseconds: Int) {
        prefix = []
        status = 200
        reason = nil
        self.delayMilliseconds = delayMilliseconds
    }

    /// Reads one `--answer` value; nil when it is not `PREFIX=STATUS[:REASON][@MILLISECONDS]`.
    init?(_ text: String, defaultDelayMilliseconds: Int) {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty else { return nil }
        var rest = parts[1]
        var delay = defaultDelayMilliseconds
        if let at = rest.firstIndex(of: "@") {
            guard let milliseconds = Int(rest[rest.index(after: at)...]), milliseconds >= 0 else { return nil }
            delay = milliseconds
            rest = rest[..<at]
        }
        let statusAndReason = rest.split(separator: ":", maxSplits: 1)
        guard let status = statusAndReason.first.flatMap({ Int($0) }), (200...599).contains(status) else {
            return nil
        }
        prefix = Array(parts[0].utf8)
        self.status = status
        reason = statusAndReason.count == 2 ? String(statusAndReason[1]) : nil
        delayMilliseconds = delay
    }

    /// Whether `token` (the bytes after `/3/device/`) starts with ``prefix``.
    func matches(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
        guard token.count >= prefix.count else { return false }
        for index in prefix.indices where token[index] != prefix[index] { return false }
        return true
    }

    /// The JSON body for a status other than 200, with a `timestamp` of `milliseconds` for a 410.
    func body(at milliseconds: Int64) -> [UInt8] {
        guard status != 200 else { return [] }
        let timestamp = status == 410 ? #","timestamp":\#(milliseconds)"# : ""
        return Array(#"{"reason":"\#(reason ?? "Unknown")"\#(timestamp)}"#.utf8)
    }
}
