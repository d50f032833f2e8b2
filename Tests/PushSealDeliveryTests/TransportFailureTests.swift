import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDelivery

/// A request that got no answer says what kind of failure it was, so that the gateway can count
/// it without reading its words; an answer, even a refusal, has no kind.
@Suite("Transport failures")
struct TransportFailureTests {
    /// The one result of sending `job` through a client of `baseURL`, retrying nothing.
    static func result(of job: DeliveryJob, to baseURL: String, trusting caFile: String, key mock: MockAPNs) throws
        -> DeliveryResult
    {
        let issuer = try ProviderTokenIssuer(
            authKeyPEM: Array(try Data(contentsOf: URL(fileURLWithPath: mock.authKey))), keyID: MockAPNs.keyID,
            teamID: MockAPNs.teamID)
        var policy = RetryPolicy()
        policy.serverRetries = 0
        let client = try APNsClient(
            endpoint: APNsEndpoint(baseURL: baseURL), tokens: issuer, policy: policy, answerTimeout: .seconds(5),
            caFile: caFile)
        var results: [DeliveryResult] = []
        client.deliver([DeliveryItem.job(job)]) { results.append($0) }
        return try #require(results.first)
    }

    @Test(
        "APNs: an answer has no kind; a closed port is network, an untrusted certificate tls, a job that fails before sending client"
    )
    func apnsKinds() throws {
        let directory = TemporaryDirectory()
        let mock = try MockAPNs(in: directory)
        defer { mock.stop() }
        let job = try APNsClientInputTests.job(line: 1)

        let answered = try Self.result(of: job, to: mock.url, trusting: mock.certificate, key: mock)
        #expect(answered.reason == "NotSealed" && answered.transportFailure == nil, "\(answered)")

        let closed = try Self.result(of: job, to: "https://127.0.0.1:9", trusting: mock.certificate, key: mock)
        #expect(closed.status == .failed && closed.transient && closed.transportFailure == .network, "\(closed)")

        let stranger = TemporaryDirectory()
        let otherMock = try MockAPNs(in: stranger)
        defer { otherMock.stop() }
        let untrusted = try Self.result(of: job, to: mock.url, trusting: otherMock.certificate, key: mock)
        #expect(
            untrusted.status == .failed && !untrusted.transient && untrusted.transportFailure == .tls, "\(untrusted)")
    }

    @Test("every kind is its own label, and the labels are distinct")
    func kindsAreLabels() {
        let labels = TransportFailure.allCases.map(\.rawValue)
        #expect(Set(labels).count == labels.count)
        #expect(labels.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "-" } }, "\(labels)")
    }
}
