internal import PushSealPrimitives

extension HPKE {
    /// `LabeledExtract` and `LabeledExpand` of RFC 9180 §4, bound to one suite identifier.
    struct LabeledKDF {
        /// `"KEM" || kem_id` inside the KEM, `"HPKE" || kem_id || kdf_id || aead_id` in the key schedule.
        let suiteIdentifier: [UInt8]

        private static let version = Array("HPKE-v1".utf8)

        /// `Extract(salt, "HPKE-v1" || suite_id || label || ikm)`. The labelled input may hold a
        /// secret, so it is assembled in wiped storage.
        func extract(salt: some ContiguousBytes, label: String, ikm: some ContiguousBytes) throws -> SecretBytes {
            let labelCount = label.utf8.count
            let labeled = ikm.withUnsafeBytes { ikm in
                SecretBytes(count: Self.version.count + suiteIdentifier.count + labelCount + ikm.count) {
                    (buffer: UnsafeMutableRawBufferPointer) in
                    var offset = 0
                    func append(_ part: UnsafeRawBufferPointer) {
                        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + part.count]).copyMemory(
                            from: part)
                        offset += part.count
                    }
                    Self.version.withUnsafeBytes(append)
                    suiteIdentifier.withUnsafeBytes(append)
                    var label = label
                    label.withUTF8 { append(UnsafeRawBufferPointer($0)) }
                    append(ikm)
                }
            }
            return try HKDF.extract(salt: salt, ikm: labeled)
        }

        /// `Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L)`.
        func expand(prk: SecretBytes, label: String, info: some ContiguousBytes, length: Int) throws -> SecretBytes {
            var labeledInfo: [UInt8] = []
            labeledInfo.reserveCapacity(2 + Self.version.count + suiteIdentifier.count + label.utf8.count + 160)
            labeledInfo.append(UInt8(length >> 8))
            labeledInfo.append(UInt8(length & 0xFF))
            labeledInfo.append(contentsOf: Self.version)
            labeledInfo.append(contentsOf: suiteIdentifier)
            labeledInfo.append(contentsOf: label.utf8)
            info.withUnsafeBytes { labeledInfo.append(contentsOf: $0) }
            return try HKDF.expand(prk: prk, info: labeledInfo, length: length)
        }
    }
}
