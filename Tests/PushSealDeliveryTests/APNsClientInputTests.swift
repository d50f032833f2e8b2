import Foundation
import PushSealTestSupport
import Synchronization
import Testing

@testable import PushSealDelivery

/// How the APNs client pulls its input: lazily, and reading answers while the input has nothing yet.
@Suite("APNs client input")
struct APNsClientInputTests {
    /// A strict mock APNs started in `directory`, and a client of it.
    static func clientOfMock(in directory: TemporaryDirectory) throws -> (MockAPNs, APNsClient) {
        let mock = try MockAPNs(in: directory)
        do {
            let issuer = try ProviderTokenIssuer(
                authKeyPEM: Array(try Data(contentsOf: URL(fileURLWithPath: mock.authKey))), keyID: MockAPNs.keyID,
                teamID: MockAPNs.teamID)
            let client = try APNsClient(
                endpoint: APNsEndpoint(baseURL: mock.url), tokens: issuer, caFile: mock.certificate)
            return (mock, client)
        } catch {
            mock.stop()
            throw error
        }
    }

    /// An unsealed alert for one device, which the strict mock answers `NotSealed`.
    static func job(line: Int) throws -> DeliveryJob {
        try DeliveryJob(
            line: line, deviceToken: String(repeating: "0a", count: 32),
            headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert")],
            body: Array(#"{"aps":{"alert":"hello"}}"#.utf8))
    }

    @Test("an input with nothing ready yet (notYet) lets the answers in flight be read and reported meanwhile")
    func answersAreReadWhileTheInputIsNotReady() throws {
        let directory = TemporaryDirectory()
        let (mock, client) = try Self.clientOfMock(in: directory)
        defer { mock.stop() }
        let input = NotReadyInput(
            first: .job(try Self.job(line: 1)), second: .job(try Self.job(line: 2)), patience: .seconds(10))
        var reported: [Int] = []
        client.deliver(input, inInputOrder: false) { (result: DeliveryResult) in
            // The strict mock refuses a payload that is not sealed: an answer all the same.
            #expect(result.reason == "NotSealed" && result.apnsID != nil, "an answer from the server: \(result)")
            reported.append(result.line)
            input.reported = reported.count
        }
        #expect(reported == [1, 2])
        #expect(input.secondTakenAfterFirstReport, "the first answer waited for the input to have more")
        #expect(input.notYetCount > 0)
    }

    @Test("with an input wake, an input that said notYet is asked again when the wake is raised, and not before")
    func aRaisedWakeEndsTheWait() throws {
        let directory = TemporaryDirectory()
        let (mock, client) = try Self.clientOfMock(in: directory)
        defer { mock.stop() }
        // Without the wake, the client would ask again only after this long.
        client.idleWaitMilliseconds = 20_000
        let job = try Self.job(line: 0)
        let wake = try InputWake()
        let input = WokenInput(jobs: [job, job])
        let releaser = Thread {
            Thread.sleep(forTimeInterval: 0.4)
            input.released.store(true, ordering: .sequentiallyConsistent)
            wake.raise()
        }
        let started = ContinuousClock.now
        releaser.start()
        var reported = 0
        client.deliver(input, inInputOrder: false, inputWake: wake) { (_: DeliveryResult) in reported += 1 }
        let elapsed = ContinuousClock.now - started
        #expect(reported == 2)
        #expect(elapsed < .seconds(10), "the raise ended the client's wait: \(elapsed)")
        #expect(elapsed >= .milliseconds(400), "the second job came only once released")
        // Polling every 5 ms would have asked some 80 times in 0.4 s.
        #expect(input.notYetCount <= 5, "asked \(input.notYetCount) times while not ready")
    }
}

/// A job, then `notYet` until `released`, then a second job, then the end.
private final class WokenInput: Sequence, IteratorProtocol, @unchecked Sendable {
    private var jobs: [DeliveryJob]
    let released = Atomic<Bool>(false)
    private(set) var notYetCount = 0

    init(jobs: [DeliveryJob]) { self.jobs = jobs }

    func next() -> DeliveryItem? {
        guard !jobs.isEmpty else { return nil }
        if jobs.count == 1 && !released.load(ordering: .sequentiallyConsistent) {
            notYetCount += 1
            return .notYet
        }
        return .job(jobs.removeFirst())
    }
}

/// One job, then `notYet` until the first job's result was reported (or `patience` ran out), then
/// a second job, then the end: an input whose second job comes only once the client has read the
/// first answer, which a client waiting on its input would never do.
private final class NotReadyInput: Sequence, IteratorProtocol, @unchecked Sendable {
    private var items: [DeliveryItem]
    private let deadline: ContinuousClock.Instant
    var reported = 0
    private(set) var notYetCount = 0
    private(set) var secondTakenAfterFirstReport = false

    init(first: DeliveryItem, second: DeliveryItem, patience: Duration) {
        items = [first, second]
        deadline = .now + patience
    }

    func next() -> DeliveryItem? {
        guard !items.isEmpty else { return nil }
        if items.count == 1 && reported == 0 && ContinuousClock.now < deadline {
            notYetCount += 1
            return .notYet
        }
        if items.count == 1 { secondTakenAfterFirstReport = reported == 1 }
        return items.removeFirst()
    }
}
