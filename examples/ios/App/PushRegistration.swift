// The app's half of PushSeal (examples/ios/README.md): the device key in the App Group's store,
// the backend's sender key pinned, and the registration that the backend forwards to
// pushseal-gateway. `make test` type-checks this file (scripts/typecheck-apple.sh); it uses no
// UIKit, so that the app's delegate only calls it.
import Foundation
import PushSealCore
import PushSealDecryptor

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLSession on Linux, where this file is type-checked
#endif

/// Registers this installation for end-to-end encrypted pushes.
///
/// From `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`, on every launch
/// (APNs may hand out a new token at any time; registering again is idempotent):
///
/// ```swift
/// Task { try await registration.register(deviceToken: deviceToken) }
/// ```
final class PushRegistration: Sendable {
    /// The App Group shared with the Notification Service Extension.
    static let appGroup = "group.com.example.shop"
    /// How long a device key is kept once a newer one is current: APNs keeps a push for an offline
    /// device until its `apns-expiration` (PushSeal's backends send at most 30 days), and
    /// pushseal-gateway retries a queued delivery for at most about 6 hours, so a push sealed for
    /// the old key can still arrive for 30 days after the backend stopped using it.
    static let gracePeriod: TimeInterval = 30 * 24 * 3600

    /// Where the app's own backend registers devices (it holds the gateway's token; the app never
    /// talks to the gateway).
    let backend: URL
    /// The store in the App Group's container.
    let store: FileKeyStore
    /// The APNs environment of this build: `sandbox` for a development-signed build, `production`
    /// for TestFlight and the App Store, as the `aps-environment` entitlement says.
    let environment: String

    /// Opens (or creates) the store and pins the backend's sender key.
    /// - Parameters:
    ///   - backend: the backend's registration endpoint.
    ///   - senderPublicJWK: the backend's sender public key, shipped in the app's bundle (never
    ///     fetched at run time: whoever could change it could read every push). Its suite is the
    ///     suite of the device keys the backend can seal for: pushseal-gateway seals for a device
    ///     key only with a sender key of the same suite (`sender_key_files`).
    ///   - environment: `sandbox` or `production`.
    init(backend: URL, senderPublicJWK: String, environment: String) throws {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Self.appGroup)
        else { throw PushSealError(.keyStoreUnavailable, "no container for \(Self.appGroup): check the App Group") }
        let store = try FileKeyStore.create(directory: container.appendingPathComponent("pushseal").path).store
        let sender = try PublicKey(jwk: Array(senderPublicJWK.utf8))
        if !(try store.loadKeyRing().trustedSenders.contains { $0.kid == sender.kid }) {
            try store.importSender(sender)
        }
        // The extension shows an unsealed push as neutral text only.
        _ = try store.changePolicy { $0.requireSealed = true }
        self.store = store
        self.backend = backend
        self.environment = environment
        self.suite = sender.suite
    }

    /// The device keys' suite: the pinned sender's.
    let suite: EnvelopeSuite

    /// Sends the receipts the extension could not send (no network, the gateway down, its time
    /// run out), kept in the store (ios.md, "Receipts"), off the main thread.
    func sendKeptReceipts() {
        let outbox = ReceiptOutbox(store: store)
        DispatchQueue.global(qos: .utility).async { outbox.flush(deadline: .now + .seconds(10)) }
    }

    /// This installation's `device_id`: a random UUID made on first use and kept beside the store,
    /// so that it survives updates and is new after a reinstall (whose store is new too). Not the
    /// device token, which APNs changes, nor `identifierForVendor`, which outlives the store.
    var deviceID: String {
        let defaults = UserDefaults(suiteName: Self.appGroup)
        if let id = defaults?.string(forKey: "pushseal.device-id") { return id }
        let id = UUID().uuidString.lowercased()
        defaults?.set(id, forKey: "pushseal.device-id")
        return id
    }

    /// Registers the current device key with `deviceToken`; makes the first key when the store
    /// has none. The key becomes current only once the backend has it.
    func register(deviceToken: Data) async throws {
        let token = deviceToken.map { String(format: "%02x", $0) }.joined()
        if let current = try currentPublicKey() {
            try await send(current, token: token)
        } else {
            try await store.rotate(suite: suite) { key in
                guard let publicKey = key.publicKey else { return }
                try await self.send(publicKey, token: token)
            }
        }
        try retireSupersededKeys()
    }

    /// Makes a new device key (every few months, or when the backend asks) and registers it; the
    /// older keys keep opening the pushes already sealed for them until ``gracePeriod`` passes.
    func rotate(deviceToken: Data) async throws {
        let token = deviceToken.map { String(format: "%02x", $0) }.joined()
        try await store.rotate(suite: suite) { key in
            guard let publicKey = key.publicKey else { return }
            try await self.send(publicKey, token: token)
        }
    }

    /// The current device key's public half, if the store has one.
    private func currentPublicKey() throws -> PublicKey? {
        guard let current = try store.entries().first(where: { $0.role == .device && $0.current }) else { return nil }
        return try store.loadKeyRing().deviceKeys.first { $0.kid == current.kid }?.publicKey
    }

    /// Retires every device key whose successor became current more than ``gracePeriod`` ago.
    private func retireSupersededKeys() throws {
        let formatter = ISO8601DateFormatter()
        let devices = try store.entries().filter { $0.role == .device }
        for (key, successor) in zip(devices, devices.dropFirst()) where !key.current {
            guard let replaced = formatter.date(from: successor.created),
                Date().timeIntervalSince(replaced) > Self.gracePeriod
            else { continue }
            try store.retire(kid: key.kid, role: .device)
        }
    }

    /// The subscription a Web Push sender (a Mastodon or Matrix server) needs to reach this phone
    /// through the gateway's relay (gateway-v1.md, "Web Push in"): `endpoint` comes from the
    /// backend, which asked the gateway for it (`POST /v1/devices/{device_id}/webpush`); the keys
    /// come from the store, made on first use. Give it to the sender as a browser's
    /// `PushSubscription.toJSON()` (Mastodon: `POST /api/v1/push/subscription`, with
    /// `"standard": true` for `aes128gcm`). `auth` is for the sender alone. The extension opens
    /// what the sender posts with no code of its own.
    func webPushSubscription(endpoint: String) throws -> JSONObject {
        let keys = try store.webPushKeys()
        return JSONObject([
            ("endpoint", .string(endpoint)),
            ("keys", .object(JSONObject([("p256dh", .string(keys.p256dh)), ("auth", .string(keys.auth))]))),
        ])
    }

    /// Sends the registration to the backend, which forwards it as
    /// `PUT /v1/devices/{device_id}` to pushseal-gateway (gateway-v1.md, "Devices").
    private func send(_ key: PublicKey, token: String) async throws {
        var request = URLRequest(url: backend)
        request.httpMethod = "PUT"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let body = JSONObject([
            ("device_id", .string(deviceID)), ("token", .string(token)),
            ("environment", .string(environment)), ("key", .object(key.jwk)),
        ])
        request.httpBody = Data(JSONWriter.bytes(.object(body)))
        let (_, response) = try await URLSession.shared.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
            throw URLError(.badServerResponse)
        }
    }
}
