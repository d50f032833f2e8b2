#if canImport(CLibSSL)
    import Glibc

    /// Keeps a write to a connection the server has reset from killing the process. OpenSSL
    /// writes with `write(2)`, which raises SIGPIPE on a broken connection, and SIGPIPE's default
    /// action ends the process: a hostile server could end the extension by resetting at the
    /// right moment. SIGPIPE is raised in the writing thread, so it is blocked there around each
    /// TLS operation and one it raised is consumed before the mask is restored; the write itself
    /// fails with EPIPE, which the caller reports. No process-wide signal state is touched.
    package enum BrokenPipeGuard {
        /// Runs `operation` with SIGPIPE blocked in this thread, and consumes a SIGPIPE it raised.
        package static func run<Result>(_ operation: () -> Result) -> Result {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
            defer {
                var pending = sigset_t()
                if sigismember(&previous, SIGPIPE) == 0, sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1
                {
                    var now = timespec(tv_sec: 0, tv_nsec: 0)
                    _ = sigtimedwait(&pipeSignal, nil, &now)
                }
                pthread_sigmask(SIG_SETMASK, &previous, nil)
            }
            return operation()
        }
    }
#endif
