internal import PushSealCore

/// `pushseal inspect`: the envelope's header, without any key.
enum InspectCommand {
    static func run(input: String?, console: Console) throws(UsageError) -> ExitStatus {
        let source = InputSource(path: input)
        let payload: JSONObject
        do {
            payload = try DecryptCommand.payload(try source.readAll())
        } catch let error as ItemFailure {
            throw UsageError("inspect: \(source.name): \(error.message)")
        } catch {
            throw error as? UsageError ?? UsageError("inspect: \(error)")
        }
        guard let text = payload["enc"]?.stringValue else {
            console.output.writeLine(JSONWriter.bytes(.object(JSONObject([("sealed", .bool(false))]))))
            return .itemsFailed
        }
        let envelope: Envelope
        do {
            envelope = try Envelope(base64URL: text)
        } catch {
            let reason = (error as? PushSealError)?.code.rawValue ?? PushSealError.Code.malformedEnvelope.rawValue
            console.output.writeLine(JSONWriter.bytes(.object(JSONObject([("error", .string(reason))]))))
            return .itemsFailed
        }
        let header = envelope.header
        var object = JSONObject()
        object["version"] = .number(JSONNumber(Int(EnvelopeHeader.version)))
        object["suite"] = .string(header.suite.name)
        object["mode"] = .string(header.mode.description)
        object["kid"] = .string(header.kid)
        if let skid = header.skid { object["skid"] = .string(skid) }
        object["envelopeBytes"] = .number(JSONNumber(envelope.bytes.count))
        object["payloadBytes"] = .number(JSONNumber(JSONWriter.bytes(.object(payload)).count))
        object["limit"] = .number(JSONNumber(Self.limit(of: payload)))
        console.output.writeLine(JSONWriter.bytes(.object(object)))
        return .success
    }

    /// 4096 bytes, or 5120 for what looks like a VoIP push: an outer payload with neither an
    /// alert nor `content-available` (the outer payload does not name its push type).
    static func limit(of payload: JSONObject) -> Int {
        let aps = payload["aps"]?.objectValue
        return aps?["alert"] == nil && aps?["content-available"] == nil ? 5120 : 4096
    }
}
