internal import PushSealCore

/// The outer payload around an envelope, written directly as bytes.
///
/// Everything but the envelope is known before sealing, so it is rendered once as a prefix and a
/// suffix; the size budget is then exact arithmetic, and the final payload is
/// `prefix + base64url(envelope) + suffix` with no serialiser in the loop.
struct OuterPayload {
    /// Everything up to and including `"enc":"`.
    let prefix: [UInt8]
    /// `"}`.
    let suffix: [UInt8] = Array("\"}".utf8)

    /// Renders the members that surround the envelope for `payload` under `options`.
    init(payload: JSONObject, options: EncryptionOptions) {
        var outerAps = JSONObject()
        switch options.pushType {
        case .alert:
            outerAps["alert"] = .object(options.placeholder.alert)
            outerAps["mutable-content"] = .number(JSONNumber(1))
        case .background:
            outerAps["content-available"] = .number(JSONNumber(1))
        default:
            break
        }
        var outer = JSONObject()
        let innerAps = payload["aps"]?.objectValue
        for name in options.clearMembers {
            if EncryptionOptions.clearableApsMembers.contains(where: { $0.isExactly(name) }) {
                if let value = innerAps?[name] { outerAps[name] = value }
            } else if let value = payload[name] {
                outer[name] = value
            }
        }
        for member in options.outerMembers { outer[member.name] = member.value }
        var bytes: [UInt8] = Array("{".utf8)
        if outerAps.count > 0 {
            bytes += Array("\"aps\":".utf8)
            JSONWriter.write(.object(outerAps), into: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        for member in outer {
            JSONWriter.writeString(member.name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONWriter.write(member.value, into: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        bytes += Array("\"enc\":\"".utf8)
        prefix = bytes
    }

    /// The size of the whole payload for an envelope of `envelopeByteCount` bytes.
    func byteCount(envelopeByteCount: Int) -> Int {
        prefix.count + Envelope.base64URLCount(ofByteCount: envelopeByteCount) + suffix.count
    }

    /// The largest envelope that keeps the payload within `limit` bytes.
    func largestEnvelope(within limit: Int) -> Int {
        // ceil(4n / 3) <= room  <=>  n <= floor(3 * room / 4)
        let room = limit - prefix.count - suffix.count
        return room > 0 ? room * 3 / 4 : 0
    }

    /// The payload's bytes around `envelope`.
    func bytes(with envelope: Envelope) -> [UInt8] {
        var bytes = prefix
        bytes.reserveCapacity(byteCount(envelopeByteCount: envelope.ciphertext.count + 128))
        envelope.appendBase64URL(to: &bytes)
        bytes += suffix
        return bytes
    }
}
