import PushSealCore
import PushSealPrimitives
import Testing

@testable import PushSealGateway

/// A delivery's receipt id (gateway-v1.md, "Receipts"): a version 7 UUID's 16 bytes, the time
/// first, so that ids made one after another sort one after another in the store's index.
@Suite("delivery receipt ids")
struct DeliveryReceiptTests {
    @Test("an id is a version 7 UUID: its millisecond in 6 bytes big-endian first; later ids sort after, none repeats")
    func timeOrdered() throws {
        let time: Int64 = 1_796_601_600_123
        let id = DeliveryReceipt.newID(at: time)
        #expect(id.count == ReceiptTicket.deliveryIDByteCount)
        #expect(Array(id.prefix(6)) == [0x01, 0xA2, 0x4D, 0xCC, 0xD8, 0x7B])
        #expect(id[6] >> 4 == 7 && id[8] >> 6 == 0b10, "version 7, RFC 9562's variant")
        let later = (1...1_000).map { DeliveryReceipt.newID(at: time + Int64($0)) }
        let pairs = zip([id] + later, later)
        #expect(pairs.allSatisfy { $0.lexicographicallyPrecedes($1) }, "each made later sorts after")
        let sameMillisecond = (0..<1_000).map { _ in DeliveryReceipt.newID(at: time) }
        #expect(Set(sameMillisecond).count == 1_000, "74 random bits tell apart the ids of one millisecond")
        #expect(ReceiptTicket.isDeliveryID(Base64URL.encode(id)))
    }
}
