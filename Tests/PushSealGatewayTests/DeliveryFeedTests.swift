import Foundation
import PushSealGatewayModel
import Synchronization
import Testing

@testable import PushSealDelivery
@testable import PushSealGateway

/// The feed a worker's sender takes deliveries from.
@Suite("pushseal-gateway delivery feed")
struct DeliveryFeedTests {
    static func delivery(_ id: Int64) -> OutboxDelivery {
        OutboxDelivery(
            id: id, app: .default, pushID: "p", deviceID: "d", kind: .apns, address: "ab", environment: .production,
            headers: [],
            body: [1], expiration: nil, attempts: 0, acceptedAt: 0, addressIsGone: false)
    }

    @Test("hands out what it holds, claims ahead once no more than its low water are left, and ends on an empty claim")
    func claimsAhead() {
        let claims = Mutex<[[Int64]]>([[4, 5], [6, 7], []])
        let made = Atomic<Int>(0)
        let feed = DeliveryFeed(first: [1, 2, 3].map(Self.delivery), lowWater: 2, name: "test.claims") {
            made.add(1, ordering: .relaxed)
            return claims.withLock { $0.isEmpty ? [] : $0.removeFirst() }.map(Self.delivery)
        }
        #expect(feed.next()?.id == 1)
        // Two left, at the low water: the next claim is under way before they are gone.
        #expect(
            (0..<200).contains { _ in
                if made.load(ordering: .relaxed) == 1 { return true }
                Thread.sleep(forTimeInterval: 0.005)
                return false
            })
        var ids: [Int64] = []
        while let delivery = feed.next() { ids.append(delivery.id) }
        #expect(ids == [2, 3, 4, 5, 6, 7])
        #expect(made.load(ordering: .relaxed) == 3, "the empty claim ended it")
        #expect(feed.next() == nil && feed.nextBatch().isEmpty, "and it stays ended")
        #expect(made.load(ordering: .relaxed) == 3)
    }

    @Test("a batch is everything in hand, and the next claim when nothing is")
    func batches() {
        let claims = Mutex<[[Int64]]>([[3], []])
        let feed = DeliveryFeed(first: [1, 2].map(Self.delivery), lowWater: 0, name: "test.batches") {
            claims.withLock { $0.isEmpty ? [] : $0.removeFirst() }.map(Self.delivery)
        }
        #expect(feed.nextBatch().map(\.id) == [1, 2])
        #expect(feed.nextBatch().map(\.id) == [3])
        #expect(feed.nextBatch().isEmpty)
    }

    @Test("an offer never waits: a delivery in hand, claiming while the claim is under way, then ended")
    func offers() {
        let release = DispatchSemaphore(value: 0)
        let claims = Mutex<[[Int64]]>([[2], []])
        let feed = DeliveryFeed(first: [1].map(Self.delivery), lowWater: 0, name: "test.offers") {
            release.wait()
            return claims.withLock { $0.isEmpty ? [] : $0.removeFirst() }.map(Self.delivery)
        }
        guard case .delivery(let first) = feed.offer() else {
            Issue.record("the delivery in hand first")
            return
        }
        #expect(first.id == 1)
        guard case .claiming = feed.offer() else {
            Issue.record("claiming, not waiting, while the claim is held back")
            return
        }
        release.signal()
        var second: OutboxDelivery?
        for _ in 0..<400 where second == nil {
            if case .delivery(let delivery) = feed.offer() {
                second = delivery
            } else {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        #expect(second?.id == 2, "the claim's delivery, once it came")
        release.signal()
        let ended = (0..<400).contains { _ in
            if case .ended = feed.offer() { return true }
            Thread.sleep(forTimeInterval: 0.005)
            return false
        }
        #expect(ended, "the empty claim ended it")
    }

    @Test("its wake is raised when a claim lands, and not while the claim is under way")
    func wakesWhenAClaimLands() throws {
        let release = DispatchSemaphore(value: 0)
        let feed = DeliveryFeed(first: [1].map(Self.delivery), lowWater: 0, name: "test.wakes") {
            release.wait()
            return [Self.delivery(2)]
        }
        let wake = try #require(feed.landed)
        func raised(waitingMilliseconds: Int32) -> Bool {
            var entry = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, waitingMilliseconds) == 1
        }
        guard case .delivery = feed.offer(), case .claiming = feed.offer() else {
            Issue.record("the delivery in hand, then claiming")
            return
        }
        #expect(!raised(waitingMilliseconds: 100), "no raise while the claim is held back")
        release.signal()
        #expect(raised(waitingMilliseconds: 10_000), "raised once the claim landed")
        guard case .delivery(let second) = feed.offer() else {
            Issue.record("the claim's delivery, offered at once after the raise")
            return
        }
        #expect(second.id == 2)
        wake.clear()
        #expect(!raised(waitingMilliseconds: 0), "cleared")
        feed.close()
        release.signal()
    }
}
