import CryptoKitStandIn
import Foundation
import PushSealTestSupport
import Testing

/// The CryptoKit behaviours the backend relies on or defends against, as the stand-in must
/// reproduce them; every other property is proven by the vectors the backend runs on it.
@Suite("CryptoKit stand-in")
struct StandInBehaviourTests {
    /// Measured with swift-crypto 4.5.0: CryptoKit returns the all-zero secret of a low-order
    /// point rather than refusing it, so the backend's own check is what refuses it.
    @Test("X25519 with a low-order point returns the all-zero secret, as CryptoKit does")
    func lowOrderPointIsNotRefused() throws {
        let key = Curve25519.KeyAgreement.PrivateKey()
        for point in [[UInt8](repeating: 0, count: 32), [1] + [UInt8](repeating: 0, count: 31)] {
            let peer = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: point)
            let secret = try key.sharedSecretFromKeyAgreement(with: peer)
            #expect(secret.withUnsafeBytes { Array($0) } == [UInt8](repeating: 0, count: 32))
        }
    }

    @Test("X25519 agrees both ways, and keys are 32 bytes")
    func x25519Agreement() throws {
        let alice = Curve25519.KeyAgreement.PrivateKey()
        let bob = Curve25519.KeyAgreement.PrivateKey()
        let one = try alice.sharedSecretFromKeyAgreement(with: bob.publicKey).withUnsafeBytes { Array($0) }
        let two = try bob.sharedSecretFromKeyAgreement(with: alice.publicKey).withUnsafeBytes { Array($0) }
        #expect(one == two)
        #expect(throws: CryptoKitError.incorrectKeySize) {
            try Curve25519.KeyAgreement.PublicKey(rawRepresentation: [UInt8](repeating: 9, count: 31))
        }
    }

    @Test("nonce and tag sizes: ChaChaPoly takes exactly 12 bytes, AES-GCM 12 or more, tags 16")
    func sizes() throws {
        #expect(throws: CryptoKitError.incorrectParameterSize) {
            try ChaChaPoly.Nonce(data: [UInt8](repeating: 0, count: 13))
        }
        #expect(throws: CryptoKitError.incorrectParameterSize) {
            try AES.GCM.Nonce(data: [UInt8](repeating: 0, count: 11))
        }
        _ = try AES.GCM.Nonce(data: [UInt8](repeating: 0, count: 16))
        let nonce = try ChaChaPoly.Nonce(data: [UInt8](repeating: 0, count: 12))
        #expect(throws: CryptoKitError.incorrectParameterSize) {
            try ChaChaPoly.SealedBox(nonce: nonce, ciphertext: [UInt8](), tag: [UInt8](repeating: 0, count: 15))
        }
        #expect(throws: CryptoKitError.incorrectKeySize) {
            try AES.GCM.seal(
                [UInt8](), using: SymmetricKey(data: [UInt8](repeating: 0, count: 20)), authenticating: [UInt8]())
        }
    }

    @Test("a sealed box opens; a flipped tag bit is authenticationFailure")
    func aeadRoundTrip() throws {
        let key = SymmetricKey(data: [UInt8](repeating: 7, count: 32))
        let box = try AES.GCM.seal(Array("hello".utf8), using: key, authenticating: Array("aad".utf8))
        #expect(try AES.GCM.open(box, using: key, authenticating: Array("aad".utf8)) == Data("hello".utf8))
        var tag = Array(box.tag)
        tag[0] ^= 1
        let forged = try AES.GCM.SealedBox(nonce: box.nonce, ciphertext: box.ciphertext, tag: tag)
        #expect(throws: CryptoKitError.authenticationFailure) {
            try AES.GCM.open(forged, using: key, authenticating: Array("aad".utf8))
        }
    }

    @Test("SHA256 is a value: a copy hashes on independently")
    func hashIsAValue() {
        var first = SHA256()
        first.update(data: Array("ab".utf8))
        var second = first
        second.update(data: Array("c".utf8))
        #expect(Hex.encode(first.finalize()) == Hex.encode(SHA256.hash(data: Array("ab".utf8))))
        #expect(
            Hex.encode(second.finalize())
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("P-256: a scalar of zero or ≥ n is refused; ECDH agrees both ways")
    func p256() throws {
        #expect(throws: CryptoKitError.invalidParameter) {
            try P256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: CryptoKitError.invalidParameter) {
            try P256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 0xFF, count: 32))
        }
        let alice = try P256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 32))
        let bob = try P256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 2, count: 32))
        let one = try alice.sharedSecretFromKeyAgreement(with: bob.publicKey).withUnsafeBytes { Array($0) }
        let two = try bob.sharedSecretFromKeyAgreement(with: alice.publicKey).withUnsafeBytes { Array($0) }
        #expect(one == two)
        var offCurve = Array(alice.publicKey.x963Representation)
        offCurve[64] ^= 1
        #expect(throws: CryptoKitError.invalidParameter) {
            try P256.KeyAgreement.PublicKey(x963Representation: offCurve)
        }
    }
}
