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
            let prefix = Self.version + suiteIdentifier + Array(label.utf8)
            let labeled = ikm.withUnsafeBytes { ikm in
                SecretBytes(count: prefix.count + ikm.count) { buffer in
                    buffer.copyBytes(from: prefix)
                    UnsafeMutableRawBufferPointer(rebasing: buffer[prefix.count...]).copyMemory(from: ikm)
                }
            }
            return try HKDF.extract(salt: salt, ikm: labeled)
        }

        /// `Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L)`.
        func expand(prk: SecretBytes, label: String, info: some ContiguousBytes, length: Int) throws -> SecretBytes {
            var labeledInfo = UInt16(length).bigEndianBytes + Self.version + suiteIdentifier + Array(label.utf8)
            info.withUnsafeBytes { labeledInfo.append(contentsOf: $0) }
            return try HKDF.expand(prk: prk, info: labeledInfo, length: length)
        }
    }
}
