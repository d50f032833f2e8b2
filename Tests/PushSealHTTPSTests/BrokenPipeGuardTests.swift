import Glibc
import PushSealHTTPS
import Testing

@Suite("Broken pipes")
struct BrokenPipeGuardTests {
    @Test("a write to a closed pipe fails with EPIPE and its SIGPIPE is held, then consumed, in this thread")
    func heldAndConsumed() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        var before = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &before)
        let (written, error, heldDuring) = BrokenPipeGuard.run { () -> (Int, Int32, Bool) in
            let written = write(ends[1], "x", 1)
            let error = errno
            var pending = sigset_t()
            sigpending(&pending)
            // Held, not delivered: a blocked signal stays pending whatever its disposition. Without
            // the guard the default disposition ends this test process (tried: it does).
            return (written, error, sigismember(&pending, SIGPIPE) == 1)
        }
        #expect(written == -1 && error == EPIPE)
        #expect(heldDuring, "SIGPIPE was not blocked during the operation")
        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, SIGPIPE) == 0, "a SIGPIPE was left pending")
        var after = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &after)
        #expect(sigismember(&after, SIGPIPE) == sigismember(&before, SIGPIPE), "the thread's mask was not restored")
    }
}
