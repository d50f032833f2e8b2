import Foundation
import PushSealCore
import PushSealGatewayModel
import Testing

@testable import PushSealGateway

/// The gateway's sealer keeps its sender key's agreement with each device (gateway-v1.md,
/// "Sealing"): a device sealed for again costs one scalar multiplication less, and what it seals
/// still opens with the device's key, as the sender's.
@Suite("Push sealer")
struct PushSealerTests {
    static let push = #"{"to":{"user":"u"},"payload":{"aps":{"alert":{"title":"Order","body":"Shipped"}}}}"#

    @Test("three pushes to two devices: two agreements computed, and every delivery opens as the sender's")
    func agreementsKept() throws {
        let sender = try PrivateKey.generate(suite: .x25519, kid: "sender")
        let sealer = PushSealer(senders: [sender], contract: nil, subscriptionContent: nil)
        let request = try PushRequest(try #require(try JSONParser.parse(Self.push).objectValue))
        let (payload, _) = try sealer.prepare(request)
        let keys = try (0..<2).map { try PrivateKey.generate(suite: .x25519, kid: "device-\($0)") }
        let devices = try keys.enumerated().map { index, key in
            let jwk = JSONWriter.string(.object(try #require(key.publicKey).jwk))
            return Device(
                app: .default, id: "device-\(index)", user: "u",
                channel: .apns(
                    token: String(repeating: "0\(index)", count: 32), topic: "com.example.shop",
                    environment: .production, publicKeyJWK: jwk),
                registeredAt: 0, unregisteredAt: nil)
        }
        for _ in 0..<3 {
            for (key, device) in zip(keys, devices) {
                let delivery = try sealer.delivery(of: payload, request, collapseID: nil, to: device)
                let body = try #require(try JSONParser.parse(delivery.body).objectValue)
                let envelope = try Envelope(base64URL: try #require(body["enc"]?.stringValue))
                let ring = KeyRing(deviceKeys: [key], trustedSenders: [try #require(sender.publicKey)])
                let opened = try envelope.open(with: ring)
                #expect(opened.header.skid == "sender")
                #expect(opened.content["aps"]?.objectValue?["alert"]?.objectValue?["body"] == .string("Shipped"))
            }
        }
        #expect(sealer.agreements.computed == 2 && sealer.agreements.count == 2)
        #expect(sealer.agreements.reused == 4, "the second and third pushes reused both")
    }
}
