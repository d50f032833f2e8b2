/// The keys an opener holds: its device keys (several during a rotation) and the sender public
/// keys it trusts. The file key store loads one; tests and other stores can build one directly.
public struct KeyRing: Sendable {
    /// Keys that can open envelopes addressed to them, by kid.
    public var deviceKeys: [PrivateKey]
    /// Sender keys accepted in auth mode. Trusting any key of an HPKE suite pins that suite.
    public var trustedSenders: [PublicKey]

    /// A ring with these keys.
    public init(deviceKeys: [PrivateKey], trustedSenders: [PublicKey] = []) {
        self.deviceKeys = deviceKeys
        self.trustedSenders = trustedSenders
    }

    /// The device key with `kid`, if it is of `suite`.
    public func deviceKey(kid: String, suite: EnvelopeSuite) -> PrivateKey? {
        deviceKeys.first { $0.kid == kid && $0.suite == suite }
    }

    /// The trusted sender with `skid`, if it is of `suite`.
    public func trustedSender(skid: String, suite: EnvelopeSuite) -> PublicKey? {
        trustedSenders.first { $0.kid == skid && $0.suite == suite }
    }

    /// True when envelopes of `suite` must come in auth mode from a trusted sender.
    public func pinsSenders(of suite: EnvelopeSuite) -> Bool {
        suite.isHPKE && trustedSenders.contains { $0.suite == suite }
    }
}
