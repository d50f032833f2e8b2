/// The header of a binary envelope, authenticated as the AEAD's associated data.
///
/// ```
/// version u8 | suite u8 | mode u8 | kid_len u8 | kid | [skid_len u8 | skid] | enc
/// ```
public struct EnvelopeHeader: Sendable, Hashable {
    /// The only version this implementation reads and writes.
    public static let version: UInt8 = 0x01

    /// The suite.
    public let suite: EnvelopeSuite
    /// Base or auth.
    public let mode: EnvelopeMode
    /// The recipient (device) key id.
    public let kid: String
    /// The sender key id, in auth mode only.
    public let skid: String?
    /// The HPKE encapsulated key, or the XChaCha20 nonce.
    public let enc: [UInt8]

    /// A header; `skid` must be given exactly in auth mode.
    init(suite: EnvelopeSuite, mode: EnvelopeMode, kid: String, skid: String?, enc: [UInt8]) {
        self.suite = suite
        self.mode = mode
        self.kid = kid
        self.skid = skid
        self.enc = enc
    }

    /// The header's length in bytes for these ids, without building it.
    public static func byteCount(suite: EnvelopeSuite, kid: String, skid: String?) -> Int {
        4 + kid.utf8.count + (skid.map { 1 + $0.utf8.count } ?? 0) + suite.encByteCount
    }

    /// The encoded header.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = [Self.version, suite.id, mode.id, UInt8(kid.utf8.count)]
        bytes.reserveCapacity(Self.byteCount(suite: suite, kid: kid, skid: skid))
        bytes.append(contentsOf: kid.utf8)
        if let skid {
            bytes.append(UInt8(skid.utf8.count))
            bytes.append(contentsOf: skid.utf8)
        }
        bytes.append(contentsOf: enc)
        return bytes
    }

    /// Parses the header at the start of `envelope`, checking every length against what is there.
    /// - Returns: the header and its length in bytes.
    /// - Throws: ``PushSealError`` with `malformed-envelope`, `unsupported-version` or `unsupported-suite`.
    public static func parse(_ envelope: [UInt8]) throws -> (header: EnvelopeHeader, byteCount: Int) {
        var reader = Reader(bytes: envelope)
        let version = try reader.byte("version")
        guard version == Self.version else {
            throw PushSealError(.unsupportedVersion, "envelope version \(version) is not supported (only 1)")
        }
        let suiteID = try reader.byte("suite")
        guard let suite = EnvelopeSuite(id: suiteID) else {
            throw PushSealError(.unsupportedSuite, "envelope suite \(suiteID) is not one of 1, 2, 3")
        }
        let modeID = try reader.byte("mode")
        let mode: EnvelopeMode
        switch modeID {
        case EnvelopeMode.base.id: mode = .base
        case EnvelopeMode.auth.id where suite.isHPKE: mode = .auth
        default:
            throw PushSealError(.malformedEnvelope, "mode \(modeID) at byte 2 is not valid for suite \(suite.id)")
        }
        let kid = try reader.keyID("kid")
        let skid = mode == .auth ? try reader.keyID("skid") : nil
        let enc = try reader.bytes(suite.encByteCount, "enc")
        return (EnvelopeHeader(suite: suite, mode: mode, kid: kid, skid: skid, enc: enc), reader.offset)
    }

    /// Reads fields in order, naming the field and byte offset of any shortfall.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func byte(_ field: @autoclosure () -> String) throws -> UInt8 {
            guard offset < bytes.count else {
                throw PushSealError(.malformedEnvelope, "envelope ends at byte \(offset), before its \(field())")
            }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func bytes(_ count: Int, _ field: @autoclosure () -> String) throws -> [UInt8] {
            guard bytes.count - offset >= count else {
                throw PushSealError(
                    .malformedEnvelope,
                    "\(field()) needs \(count) bytes at byte \(offset), only \(bytes.count - offset) remain")
            }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        mutating func keyID(_ field: String) throws -> String {
            let lengthOffset = offset
            let length = Int(try byte("\(field)_len"))
            guard (1...KeyID.maximumLength).contains(length) else {
                throw PushSealError(
                    .malformedEnvelope, "\(field)_len \(length) at byte \(lengthOffset) is outside 1…64")
            }
            let raw = try bytes(length, field)
            guard raw.allSatisfy(KeyID.isAllowed) else {
                throw PushSealError(
                    .malformedEnvelope, "\(field) at byte \(lengthOffset + 1) has a character outside A-Z a-z 0-9 . _ -"
                )
            }
            return String(decoding: raw, as: UTF8.self)
        }
    }
}
