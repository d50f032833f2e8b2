import PushSealGatewayModel
import Testing

/// The retry rules as windows: the same inputs give the same window, so each bound is exact.
@Suite("pushseal-gateway retry schedule")
struct RetryScheduleTests {
    @Test("a transient failure waits in the upper half of 30 s doubled each round, at most an hour, 12 requests in all")
    func transientWindows() {
        #expect(RetrySchedule.retryWindow(attempts: 0, at: 1_000) == 16_000...31_000)
        #expect(RetrySchedule.retryWindow(attempts: 1, at: 1_000) == 31_000...61_000)
        #expect(RetrySchedule.retryWindow(attempts: 2, at: 1_000) == 61_000...121_000)
        #expect(RetrySchedule.retryWindow(attempts: 7, at: 0) == 1_800_000...3_600_000, "capped at an hour")
        #expect(RetrySchedule.retryWindow(attempts: 11, at: 0) == 1_800_000...3_600_000)
        #expect(RetrySchedule.retryWindow(attempts: 12, at: 0) == nil, "the twelfth request was the last")
        #expect(RetrySchedule.retryWindow(attempts: 3, retryAfterSeconds: 7, at: 1_000) == 8_000...8_000)
        #expect(RetrySchedule.retryWindow(attempts: 3, retryAfterSeconds: 0, at: 0) == 1_000...1_000, "at least 1 s")
        #expect(
            RetrySchedule.retryWindow(attempts: 3, retryAfterSeconds: 86_400, at: 0) == 3_600_000...3_600_000,
            "at most an hour")
    }

    @Test("a held delivery waits half the time held, 30 s to 10 minutes, for 24 hours")
    func heldWindows() {
        #expect(RetrySchedule.heldRetryWindow(acceptedAt: 0, at: 1_000) == 16_000...31_000)
        #expect(RetrySchedule.heldRetryWindow(acceptedAt: 0, at: 600_000) == 750_000...900_000)
        #expect(RetrySchedule.heldRetryWindow(acceptedAt: 0, at: 3_600_000) == 3_900_000...4_200_000)
        #expect(RetrySchedule.heldRetryWindow(acceptedAt: 0, at: RetrySchedule.providerTokenHold) == nil)
    }

    @Test("a failing webhook endpoint waits the upper quarter of 5 s doubled, at most an hour, never less than asked")
    func webhookWindows() {
        #expect(RetrySchedule.webhookBackoff(failures: 1, retryAfterSeconds: nil) == 3_750...5_000)
        #expect(RetrySchedule.webhookBackoff(failures: 3, retryAfterSeconds: nil) == 15_000...20_000)
        #expect(RetrySchedule.webhookBackoff(failures: 40, retryAfterSeconds: nil) == 2_700_000...3_600_000)
        #expect(RetrySchedule.webhookBackoff(failures: 1, retryAfterSeconds: 60) == 60_000...60_000)
        #expect(RetrySchedule.webhookBackoff(failures: 3, retryAfterSeconds: 17) == 17_000...20_000)
        #expect(RetrySchedule.webhookBackoff(failures: 1, retryAfterSeconds: 99_999) == 3_600_000...3_600_000)
    }
}
