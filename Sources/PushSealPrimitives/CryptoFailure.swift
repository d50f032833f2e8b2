/// Why a primitive refused to work. Deliberately coarse: it never carries key bytes or plaintext,
/// and every authentication failure is the single case ``authenticationFailed`` so that callers
/// cannot use the error as an oracle.
package enum CryptoFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// An AEAD tag did not verify, or a key agreement produced a forbidden result.
    case authenticationFailed
    /// A key was malformed: wrong length, not on the curve, out of range.
    case invalidKey(String)
    /// An input other than a key had the wrong size (nonce, output length, …).
    case invalidInput(String)
    /// The C library reported an internal error.
    case library(String)

    package var description: String {
        switch self {
        case .authenticationFailed: "authentication failed"
        case .invalidKey(let why): "invalid key: \(why)"
        case .invalidInput(let why): "invalid input: \(why)"
        case .library(let why): "crypto library error: \(why)"
        }
    }
}
