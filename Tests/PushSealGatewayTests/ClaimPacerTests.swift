import Foundation
import Testing

@testable import PushSealGateway

/// The spacing of a kind's claims once the outbox runs dry.
@Suite("pushseal-gateway claim pacing")
struct ClaimPacerTests {
    @Test("a claim that drained the outbox holds the next turn for the rest of the cooldown; a full claim holds none")
    func cooldownFollowsADrainingClaim() throws {
        let pacer = ClaimPacer(cooldown: .milliseconds(5))
        let start = ContinuousClock.now
        let first = try #require(pacer.takeTurn(at: start))
        #expect(first == .init(wait: .zero, isPaced: false), "the first claim goes at once")
        #expect(!pacer.claimed(25, of: 25, turn: first, at: start))
        let full = try #require(pacer.takeTurn(at: start))
        #expect(full.wait == .zero, "a full claim: more may be due, claim again at once")
        #expect(!pacer.claimed(3, of: 25, turn: full, at: start))
        let paced = try #require(pacer.takeTurn(at: start + .milliseconds(2)))
        #expect(paced == .init(wait: .milliseconds(3), isPaced: true))
        #expect(!pacer.claimed(0, of: 25, turn: paced, at: start + .milliseconds(5)), "nobody gave way: no claim again")
        let late = try #require(pacer.takeTurn(at: start + .milliseconds(14)))
        #expect(late == .init(wait: .zero, isPaced: true), "the cooldown has passed")
        #expect(!pacer.claimed(25, of: 25, turn: late, at: start + .milliseconds(14)))
        #expect(pacer.takeTurn(at: start + .milliseconds(14)) == .init(wait: .zero, isPaced: false), "a backlog again")
        #expect(pacer.takeTurn(at: start + .milliseconds(14)) == .init(wait: .zero, isPaced: false), "for every worker")
    }

    @Test(
        "while the outbox is thin the kind has one turn: other workers give way to it, and it claims again if it found nothing"
    )
    func oneTurnForTheKind() throws {
        let pacer = ClaimPacer(cooldown: .milliseconds(5))
        let start = ContinuousClock.now
        let drained = try #require(pacer.takeTurn(at: start))
        _ = pacer.claimed(2, of: 25, turn: drained, at: start)
        let turn = try #require(pacer.takeTurn(at: start + .milliseconds(1)))
        #expect(turn == .init(wait: .milliseconds(4), isPaced: true))
        #expect(pacer.takeTurn(at: start + .milliseconds(2)) == nil, "a second worker gives way")
        #expect(pacer.takeTurn(at: start + .milliseconds(3)) == nil, "and a third")
        // The turn's claim found nothing, though a worker was woken meanwhile: its push may have
        // been stored after the claim read the outbox, so the turn claims again.
        #expect(pacer.claimed(0, of: 25, turn: turn, at: start + .milliseconds(6)))
        let again = try #require(pacer.takeTurn(at: start + .milliseconds(6)))
        #expect(again == .init(wait: .milliseconds(5), isPaced: true), "a cooldown after the empty claim")
        #expect(!pacer.claimed(0, of: 25, turn: again, at: start + .milliseconds(11)), "nobody gave way this time")
        // A turn whose claim found some: its worker's feed claims again anyway.
        let found = try #require(pacer.takeTurn(at: start + .milliseconds(16)))
        #expect(pacer.takeTurn(at: start + .milliseconds(16)) == nil)
        #expect(!pacer.claimed(4, of: 25, turn: found, at: start + .milliseconds(16)))
        #expect(pacer.takeTurn(at: start + .milliseconds(17))?.isPaced == true, "the turn is free again")
    }

    @Test("a claim made at once in a backlog that ends short leaves a pending turn pending")
    func unpacedClaimsLeaveThePendingTurn() throws {
        let pacer = ClaimPacer(cooldown: .milliseconds(5))
        let start = ContinuousClock.now
        let backlog = try #require(pacer.takeTurn(at: start))
        let other = try #require(pacer.takeTurn(at: start))
        _ = pacer.claimed(10, of: 25, turn: other, at: start)
        let paced = try #require(pacer.takeTurn(at: start))
        #expect(paced.isPaced)
        #expect(!pacer.claimed(7, of: 25, turn: backlog, at: start + .milliseconds(1)))
        #expect(pacer.takeTurn(at: start + .milliseconds(1)) == nil, "the paced turn is still pending")
    }

    @Test("waiting for its turn sleeps out the cooldown once; a backlog's turns do not wait")
    func waitsForItsTurn() throws {
        let pacer = ClaimPacer(cooldown: .milliseconds(40))
        let first = try #require(pacer.waitForTurn())
        _ = pacer.claimed(0, of: 25, turn: first)
        var paced: ClaimPacer.Turn?
        let waited = ContinuousClock().measure { paced = pacer.waitForTurn() }
        #expect(waited >= .milliseconds(39))
        _ = pacer.claimed(25, of: 25, turn: try #require(paced))
        let again = ContinuousClock().measure { _ = pacer.waitForTurn() }
        #expect(again < .milliseconds(30), "a backlog: no second wait")
    }
}
