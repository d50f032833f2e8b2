/// The common shape of a Project Wycheproof vector file (`doc/types.md` upstream).
package struct WycheproofFile<Test: Decodable & Sendable, GroupParameters: Decodable & Sendable>: Decodable, Sendable {
    /// The algorithm under test.
    package let algorithm: String
    /// How many tests the file holds; a test run must execute exactly this many.
    package let numberOfTests: Int
    /// The groups, each sharing parameters.
    package let testGroups: [Group]

    /// A group of tests sharing parameters (key and nonce sizes, curve, …).
    package struct Group: Decodable, Sendable {
        /// The group's parameters.
        package let parameters: GroupParameters
        /// The tests.
        package let tests: [Test]

        package init(from decoder: any Decoder) throws {
            parameters = try GroupParameters(from: decoder)
            let container = try decoder.container(keyedBy: Keys.self)
            tests = try container.decode([Test].self, forKey: .tests)
        }

        private enum Keys: String, CodingKey { case tests }
    }
}

/// The verdict a Wycheproof test expects.
package enum WycheproofResult: String, Decodable, Sendable {
    /// Must succeed with the given output.
    case valid
    /// Must be refused.
    case invalid
    /// Either, by a stated policy; if accepted, the output must match.
    case acceptable
}

/// Group parameters for files whose groups carry none that the tests need.
package struct NoGroupParameters: Decodable, Sendable {}

/// A test of an AEAD file (`aead_test_schema_v1`).
package struct AEADTestCase: Decodable, Sendable {
    package let tcId: Int
    package let key: String
    package let iv: String
    package let aad: String
    package let msg: String
    package let ct: String
    package let tag: String
    package let result: WycheproofResult
    package let flags: [String]
}

/// The parameters of an AEAD group; sizes are in bits.
package struct AEADGroupParameters: Decodable, Sendable {
    package let keySize: Int
    package let ivSize: Int
    package let tagSize: Int
}

/// A test of `x25519_test.json` and of `ecdh_secp256r1_ecpoint_test.json`.
package struct KeyAgreementTestCase: Decodable, Sendable {
    package let tcId: Int
    package let `public`: String
    package let `private`: String
    package let shared: String
    package let result: WycheproofResult
    package let flags: [String]
}

/// A test of `hkdf_sha256_test.json`; `size` is in bytes.
package struct HKDFTestCase: Decodable, Sendable {
    package let tcId: Int
    package let ikm: String
    package let salt: String
    package let info: String
    package let size: Int
    package let okm: String
    package let result: WycheproofResult
}
