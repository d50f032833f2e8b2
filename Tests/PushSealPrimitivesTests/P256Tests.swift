import Dispatch
import PushSealPrimitives
import Testing

/// P-256 key generation, scalar and point import, and agreement shared between threads:
/// what Wycheproof's fixed keys do not exercise.
@Suite("P-256 keys")
struct P256Tests {
    /// The group order n, big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    @Test("a fresh key's public point is d·G, and two fresh keys agree on one secret")
    func freshKeys() throws {
        var seenScalars = Set<[UInt8]>()
        for _ in 0..<32 {
            let alice = try P256.PrivateKey()
            let bob = try P256.PrivateKey()
            let scalar = alice.rawRepresentation.withUnsafeBytes { Array($0) }
            #expect(scalar.count == P256.scalarByteCount)
            #expect(scalar.lexicographicallyPrecedes(Self.order))
            #expect(seenScalars.insert(scalar).inserted, "a generated scalar repeated")
            let reimported = try P256.PrivateKey(rawRepresentation: alice.rawRepresentation)
            #expect(reimported.publicKey.x963Representation == alice.publicKey.x963Representation)
            #expect(alice.publicKey.x963Representation.count == P256.pointByteCount)
            #expect(alice.publicKey.x963Representation.first == 0x04)
            #expect(try alice.sharedSecret(with: bob.publicKey) == bob.sharedSecret(with: alice.publicKey))
        }
    }

    @Test(
        "scalars outside 1…n−1 or of the wrong length are refused",
        arguments: [
            ("zero", [UInt8](repeating: 0, count: 32)),
            ("n", order),
            ("n + 1", Array(order.dropLast()) + [order[31] + 1]),
            ("all ones", [UInt8](repeating: 0xFF, count: 32)),
            ("31 bytes", [UInt8](repeating: 1, count: 31)),
            ("33 bytes", [UInt8](repeating: 1, count: 33)),
        ])
    func badScalars(name: String, scalar: [UInt8]) {
        #expect(throws: CryptoFailure.self, "\(name)") {
            try P256.PrivateKey(rawRepresentation: SecretBytes(copying: scalar))
        }
    }

    @Test("n − 1 is the largest scalar accepted")
    func largestScalar() throws {
        let largest = Array(Self.order.dropLast()) + [Self.order[31] - 1]
        let key = try P256.PrivateKey(rawRepresentation: SecretBytes(copying: largest))
        // (n − 1)·G = −G: the generator's x with the other y.
        let generatorX: [UInt8] = [
            0x6B, 0x17, 0xD1, 0xF2, 0xE1, 0x2C, 0x42, 0x47, 0xF8, 0xBC, 0xE6, 0xE5, 0x63, 0xA4, 0x40, 0xF2,
            0x77, 0x03, 0x7D, 0x81, 0x2D, 0xEB, 0x33, 0xA0, 0xF4, 0xA1, 0x39, 0x45, 0xD8, 0x98, 0xC2, 0x96,
        ]
        #expect(Array(key.publicKey.x963Representation[1...32]) == generatorX)
    }

    @Test("points that are compressed, infinity, off the curve or mis-sized are refused")
    func badPoints() throws {
        let valid = try P256.PrivateKey().publicKey.x963Representation
        var offCurve = valid
        offCurve[64] ^= 0x01
        var compressed = [UInt8(0x02 | (valid[64] & 1))]
        compressed += valid[1...32]
        let cases: [(String, [UInt8])] = [
            ("off the curve", offCurve),
            ("compressed", compressed),
            ("infinity", [0x00]),
            ("64 bytes", Array(valid.dropLast())),
            ("hybrid prefix", [0x06] + valid.dropFirst()),
            ("all zero coordinates", [0x04] + [UInt8](repeating: 0, count: 64)),
        ]
        for (name, bytes) in cases {
            #expect(throws: CryptoFailure.self, "\(name)") { try P256.PublicKey(x963Representation: bytes) }
        }
        #expect(try P256.PublicKey(x963Representation: valid).x963Representation == valid)
    }

    @Test("keys shared between threads give every thread the same secret")
    func sharedBetweenThreads() throws {
        let alice = try P256.PrivateKey()
        let bob = try P256.PublicKey(x963Representation: P256.PrivateKey().publicKey.x963Representation)
        let expected = try alice.sharedSecret(with: bob)
        let mismatches = Counter()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<100 where (try? alice.sharedSecret(with: bob)) != expected {
                mismatches.increment()
            }
        }
        #expect(mismatches.value == 0)
    }
}

/// A thread-safe tally.
private final class Counter: @unchecked Sendable {
    private let lock = DispatchQueue(label: "counter")
    private var count = 0

    func increment() { lock.sync { count += 1 } }
    var value: Int { lock.sync { count } }
}
