/// CryptoKit's error type, with the cases of Apple's documentation that the stand-in throws.
public enum CryptoKitError: Error, Equatable, Sendable {
    /// A key is not of a size the algorithm takes.
    case incorrectKeySize
    /// A nonce, tag or signature is not of a size the algorithm takes.
    case incorrectParameterSize
    /// A tag or signature did not verify.
    case authenticationFailure
    /// The library beneath refused the operation, with its error code.
    case underlyingCoreCryptoError(error: Int32)
    /// A parameter is invalid (a scalar out of range, a point off the curve, a PEM that is not a key).
    case invalidParameter
}
