import PushSealCore
import PushSealPrimitives
import Testing

@testable import PushSealGateway

/// A delivery's receipt id (gateway-v1.md, "Receipts"): 16 bytes, the time first, so that ids
/// made one after another sort one after another in the store's index.
@Suite("delivery receipt ids")
struct DeliveryReceiptTests {
    @Test("an id is its millisecond in 6 bytes big-endian, then 10 random bytes: later ids sort after, none repeats")
    func timeOrdered() throws {
        let time: Int64 = 1_796_601_600_123
        let id = DeliveryReceipt.newID(at: time)
        #expect(id.count == ReceiptTicket.deliveryIDByteCount)
        #expect(Array(id.prefix(6)) == [0x01, 0xA2, 0x4D, 0xCC, 0xD8, 0x7B])
        let later = (1...1_000).map { DeliveryReceipt.newID(at: time + Int64($0)) }
        let pairs = zip([id] + later, later)
        #expect(pairs.allSatisfy { $0.lexicographicallyPrecedes($1) }, "each made later sorts after")
        let sameMillisecond = (0..<1_000).map { _ in DeliveryReceipt.newID(at: time) }
        #expect(Set(sameMillisecond).count == 1_000, "ten random bytes tell apart the ids of one millisecond")
        #expect(ReceiptTicket.isDeliveryID(Base64URL.encode(id)))
    }
}
