import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

@Suite("Extension session")
struct ExtensionSessionTests {
    /// Waits until `condition` holds, for at most `seconds`.
    static func wait(seconds: Double, until condition: () -> Bool) {
        let end = Date().addingTimeInterval(seconds)
        while !condition() && Date() < end { Thread.sleep(forTimeInterval: 0.001) }
    }

    @Test("a result ready in time is delivered once, decrypted")
    func delivered() throws {
        let device = try Device()
        let results = Protected<[DecryptionResult]>([])
        let session = ExtensionSession(payload: try device.seal(samplePayload), decryptor: device.decryptor) { result in
            results.withLock { $0.append(result) }
        }
        session.didReceive()
        // Waits for the handler itself: `isDelivered` turns true before the handler has run.
        Self.wait(seconds: 5) { results.withLock { !$0.isEmpty } }
        session.timeWillExpire()
        #expect(session.isDelivered)
        #expect(results.withLock { $0.map(\.status) } == [.decrypted])
    }

    @Test("when time runs out first, the notification as it arrived is delivered with timeout, and only that")
    func timeout() throws {
        let device = try Device()
        let slow = Decryptor(keyStore: MemoryKeyStore(ring: try device.store.loadKeyRing(), delay: .milliseconds(300)))
        let payload = try device.seal(samplePayload)
        let results = Protected<[DecryptionResult]>([])
        let session = ExtensionSession(payload: payload, decryptor: slow) { result in
            results.withLock { $0.append(result) }
        }
        session.didReceive()
        session.timeWillExpire()
        Thread.sleep(forTimeInterval: 0.6)
        let delivered = results.withLock { $0 }
        #expect(delivered.count == 1)
        #expect(delivered.first?.status == .degraded)
        #expect(delivered.first?.reason == .timeout)
        #expect(delivered.first?.notification.userInfo == payload)
    }

    @Test("under require-sealed, time running out shows the neutral text, not the payload as it arrived")
    func timeoutUnderRequireSealed() throws {
        let device = try Device()
        let policy = StorePolicy(requireSealed: true)
        let slow = Decryptor(
            keyStore: MemoryKeyStore(ring: try device.store.loadKeyRing(), delay: .milliseconds(300)), policy: policy)
        let results = Protected<[DecryptionResult]>([])
        let session = ExtensionSession(payload: try device.seal(samplePayload), decryptor: slow) { result in
            results.withLock { $0.append(result) }
        }
        session.didReceive()
        session.timeWillExpire()
        let delivered = results.withLock { $0 }
        #expect(delivered.map(\.reason) == [.timeout])
        #expect(delivered.first?.notification.userInfo == policy.neutralPayload)
    }

    @Test("after time ran out, the late result counts timeout once and records no event_id; in time, it records")
    func ledgerRecordsWhatWasShown() throws {
        let device = try Device()
        let ring = try device.store.loadKeyRing()
        let slow = Decryptor(
            keyStore: MemoryKeyStore(ring: ring, delay: .milliseconds(300)), ledger: device.store.ledger)
        let payload = try device.seal(samplePayload)
        let late = ExtensionSession(payload: payload, decryptor: slow) { _ in }
        late.didReceive()
        late.timeWillExpire()
        Thread.sleep(forTimeInterval: 0.6)
        #expect(try device.store.ledger.outcomeCounts() == ["timeout": 1])
        #expect(try device.store.ledger.eventCount() == 0, "the content was never shown")

        let fast = Decryptor(keyStore: MemoryKeyStore(ring: ring), ledger: device.store.ledger)
        let results = Protected<[DecryptionResult]>([])
        for round in 1...2 {
            let session = ExtensionSession(payload: payload, decryptor: fast) { result in
                results.withLock { $0.append(result) }
            }
            session.didReceive()
            Self.wait(seconds: 5) { results.withLock { $0.count == round } }
            session.timeWillExpire()
        }
        #expect(results.withLock { $0.map(\.duplicate) } == [false, true])
        #expect(try device.store.ledger.outcomeCounts() == ["timeout": 1, "decrypted": 1, "duplicate": 1])
        #expect(try device.store.ledger.eventCount() == 1)
    }

    /// Thousands of races between the work finishing and time expiring, from different threads.
    @Test("the content handler is called exactly once in 3,000 races")
    func races() throws {
        let device = try Device()
        let decryptor = Decryptor(keyStore: MemoryKeyStore(ring: try device.store.loadKeyRing()))
        let payload = try device.seal(samplePayload)
        let calls = Protected<[Int]>(Array(repeating: 0, count: 3_000))
        let expirer = DispatchQueue(label: "expire", attributes: .concurrent)
        let group = DispatchGroup()
        for index in 0..<3_000 {
            let session = ExtensionSession(payload: payload, decryptor: decryptor) { _ in
                calls.withLock { $0[index] += 1 }
            }
            group.enter()
            session.didReceive()
            expirer.asyncAfter(deadline: .now() + .microseconds(index % 400)) {
                session.timeWillExpire()
                group.leave()
            }
        }
        group.wait()
        Self.wait(seconds: 10) { calls.withLock { $0.allSatisfy { $0 >= 1 } } }
        Thread.sleep(forTimeInterval: 0.1)
        let counts = calls.withLock { $0 }
        #expect(
            counts.allSatisfy { $0 == 1 },
            "\(counts.filter { $0 != 1 }.count) sessions called the handler \(Set(counts)) times")
    }
}
