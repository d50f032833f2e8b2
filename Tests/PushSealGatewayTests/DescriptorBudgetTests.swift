import PushSealGatewayModel
import Testing

@testable import PushSealGateway

/// The HTTP connections a process's descriptors allow (gateway-v1.md, "Slow and greedy clients"):
/// the configured number, lowered so that the reserve for the workers and the database, and the
/// server's room for connections being closed, always fit.
@Suite("the descriptor budget")
struct DescriptorBudgetTests {
    @Test("the connections held and the room for those being closed fit what is left after the reserve, as many as fit")
    func connectionsFit() throws {
        for descriptors in [200, 300, 1_024, 4_096, 65_536] {
            let held = try DescriptorBudget.connections(
                configured: 1_024, descriptors: descriptors, open: 20, workers: 6, databaseConnections: 8)
            let left = descriptors - (DescriptorBudget.baseReserve + 6 * DescriptorBudget.perWorker + 8 + 20)
            #expect(held + HTTPServer.closingRoom(for: held) <= left, "\(descriptors): \(held)")
            #expect(
                held == 1_024 || held + 1 + HTTPServer.closingRoom(for: held + 1) > left,
                "\(descriptors): one more would fit too: \(held)")
        }
        #expect(throws: GatewayError.self) {
            try DescriptorBudget.connections(
                configured: 1_024, descriptors: 150, open: 20, workers: 6, databaseConnections: 8)
        }
    }
}
