// libFuzzer target: arbitrary bytes as a binary envelope, through the header parser.
//
// Beyond "no crash", it checks that a header that parses re-encodes to exactly the bytes it was
// read from, and that every refusal carries one of the header's three reasons.
import PushSealCore

/// One fuzz input: the bytes as a binary envelope.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvelope(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let (header, count) = try EnvelopeHeader.parse(bytes)
        precondition(header.bytes == Array(bytes.prefix(count)), "the header does not round-trip")
        let envelope = try Envelope(bytes: bytes)
        precondition(envelope.bytes == bytes, "the envelope does not round-trip")
        let decoded = try Envelope(base64URL: envelope.base64URL)
        precondition(decoded.bytes == bytes, "base64url does not round-trip")
    } catch let error as PushSealError {
        let allowed: Set<PushSealError.Code> = [.malformedEnvelope, .unsupportedVersion, .unsupportedSuite]
        precondition(allowed.contains(error.code), "unexpected reason \(error.code)")
    } catch {
        preconditionFailure("unexpected error \(error)")
    }
    return 0
}
