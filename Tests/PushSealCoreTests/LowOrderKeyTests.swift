import PushSealCore
import PushSealPrimitives
import PushSealTestSupport
import Testing

/// A low-order X25519 public key is refused where it enters: a JWK read at import or load.
@Suite("Low-order X25519 keys")
struct LowOrderKeyTests {
    /// The small-order points of Curve25519 in their canonical and non-canonical encodings
    /// (RFC 7748 §6.1: X25519 with any private key gives all zeros for each).
    static let points = [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ]

    static func jwk(_ hex: String, kid: String = "weak") -> String {
        #"{"kty":"OKP","crv":"X25519","x":"\#(Base64URL.encode(Hex.decode(hex)))","kid":"\#(kid)"}"#
    }

    @Test("each small-order point is refused at import, naming the key", arguments: points)
    func refused(_ hex: String) throws {
        do {
            _ = try PublicKey(jwk: Array(Self.jwk(hex).utf8))
            Issue.record("accepted \(hex)")
        } catch let error as PushSealError {
            #expect(error.code == .invalidKey)
            #expect(error.detail.contains("\"weak\"") && error.detail.contains("low-order"), "\(error.detail)")
        }
    }

    @Test("an ordinary key is accepted")
    func ordinary() throws {
        let key = try PrivateKey.generate(suite: .x25519)
        let public_ = try #require(key.publicKey)
        #expect(try PublicKey(jwk: public_.jwk).rawRepresentation == public_.rawRepresentation)
    }
}
