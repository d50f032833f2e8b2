import Dispatch
import Testing

@testable import PushSealGateway

/// The wake-ups a kind's workers get as pushes are accepted.
@Suite("pushseal-gateway worker wake")
struct WorkerWakeTests {
    @Test("pushes accepted while every worker is busy hold one wake-up per worker, not one per push")
    func holdsOneWakePerWorker() {
        let wake = WorkerWake(workers: 4)
        for _ in 0..<1_000 { wake.notify() }
        let woken = (0..<6).filter { _ in wake.wait(timeout: .now() + .milliseconds(50)) }.count
        #expect(woken == 4, "four workers claim; the other 996 pushes are theirs to find, not 996 more claims")
        wake.notify()
        #expect(wake.wait(timeout: .now() + .milliseconds(50)), "a wake-up taken makes room for the next")
        #expect(!wake.wait(timeout: .now() + .milliseconds(50)))
    }

    @Test("a worker waiting is woken by the next push, and every worker by a stop")
    func wakesWaitingWorkers() {
        let wake = WorkerWake(workers: 3)
        func waiters(_ count: Int) -> DispatchGroup {
            let woken = DispatchGroup()
            for _ in 0..<count {
                woken.enter()
                DispatchQueue.global().async {
                    if wake.wait(timeout: .now() + 10) { woken.leave() }
                }
            }
            return woken
        }
        let one = waiters(1)
        wake.notify()
        #expect(one.wait(timeout: .now() + 5) == .success)
        let all = waiters(3)
        wake.notify()
        wake.wakeAll()
        #expect(all.wait(timeout: .now() + 5) == .success)
    }
}
