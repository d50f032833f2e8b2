import Foundation
import Testing

@testable import PushSealGateway

/// The spacing of a worker's claims once the outbox runs dry.
@Suite("pushseal-gateway claim pacing")
struct ClaimPacerTests {
    @Test("a claim that drained the outbox holds the next one for the rest of the cooldown; a full claim holds none")
    func cooldownFollowsADrainingClaim() {
        let pacer = ClaimPacer(cooldown: .milliseconds(5))
        let start = ContinuousClock.now
        #expect(pacer.wait(at: start) == .zero, "the first claim goes at once")
        pacer.claimed(25, of: 25, at: start)
        #expect(pacer.wait(at: start) == .zero, "a full claim: more may be due, claim again at once")
        pacer.claimed(3, of: 25, at: start)
        #expect(pacer.wait(at: start) == .milliseconds(5))
        #expect(pacer.wait(at: start + .milliseconds(2)) == .milliseconds(3))
        #expect(pacer.wait(at: start + .milliseconds(9)) == .zero, "the cooldown has passed")
        pacer.claimed(0, of: 25, at: start + .milliseconds(9))
        #expect(pacer.wait(at: start + .milliseconds(10)) == .milliseconds(4), "an empty claim drained it too")
        pacer.claimed(25, of: 25, at: start + .milliseconds(10))
        #expect(pacer.wait(at: start + .milliseconds(10)) == .zero, "a backlog again: no wait")
    }

    @Test("waiting for its turn sleeps out the cooldown once, then lets the next claim go at once")
    func waitsForItsTurn() {
        let pacer = ClaimPacer(cooldown: .milliseconds(40))
        pacer.claimed(0, of: 25)
        let waited = ContinuousClock().measure { pacer.waitForTurn() }
        #expect(waited >= .milliseconds(39))
        #expect(pacer.wait() == .zero)
        let again = ContinuousClock().measure { pacer.waitForTurn() }
        #expect(again < .milliseconds(30), "the turn has come: no second wait")
    }
}
