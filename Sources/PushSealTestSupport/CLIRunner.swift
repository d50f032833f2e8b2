package import Foundation

/// Runs the built `pushseal` binary, as a user or a backend would, and captures what it says.
package enum CLIRunner {
    /// What a run produced.
    package struct Result: Sendable {
        /// The exit status.
        package let status: Int32
        /// Standard output.
        package let output: String
        /// Standard error.
        package let errors: String
        /// Why standard input was not written in full, or nil when it was. A child that exits
        /// without reading its input has it set (broken pipe); one that should read it all must not.
        package var inputError: String? = nil

        /// Standard output's non-empty lines.
        package var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    }

    /// The binary next to the test bundle (both are built by `swift build --build-tests`).
    package static let executable: URL = {
        let testBundle = URL(fileURLWithPath: CommandLine.arguments[0])
        var directory = testBundle.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("pushseal")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return TestVectors.packageRoot.appendingPathComponent(".build/debug/pushseal")
    }()

    /// Runs `pushseal arguments…` in `directory` with `input` on standard input.
    /// - Parameters:
    ///   - outputFile: a file to take standard output instead of a pipe (`/dev/full`).
    ///   - environment: variables to set for this run, over the test process's own.
    package static func run(
        _ arguments: [String], input: Data = Data(), in directory: String? = nil, outputFile: String? = nil,
        environment: [String: String] = [:]
    ) throws -> Result {
        try run(
            executable: executable, arguments, input: input, in: directory, outputFile: outputFile,
            environment: environment)
    }

    /// How long a run may take before it is killed (status 137 then): a hang fails its test
    /// instead of stopping the suite.
    package static let timeoutSeconds = 120.0

    /// A child that exits before reading its input closes the pipe: the write must fail with
    /// EPIPE, not kill the test process with SIGPIPE.
    private static let pipeSignalIgnored: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Runs any program, capturing both outputs. The child is started with `posix_spawn` and
    /// reaped with `waitpid` on its own id: Foundation's `Process.waitUntilExit` missed a child's
    /// exit in a clean-clone CI run and spun for ever beside the zombie. It is killed after
    /// `timeout` seconds (``timeoutSeconds`` unless a long run, such as a fuzzer's or a browser's,
    /// says otherwise).
    package static func run(
        executable: URL, _ arguments: [String], input: Data, in directory: String?, outputFile: String? = nil,
        environment: [String: String] = [:], timeout: Double = timeoutSeconds
    ) throws -> Result {
        _ = pipeSignalIgnored
        let stdin = try closeOnExecPipe()
        let stdout = try closeOnExecPipe()
        let stderr = try closeOnExecPipe()
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pid = try spawn(
            [executable.path] + arguments, in: directory, environment: variables,
            stdin: stdin.read.fileDescriptor, stdout: stdout.write.fileDescriptor, stderr: stderr.write.fileDescriptor,
            outputFile: outputFile)
        // The child has its own copies now; the parent keeps only its ends.
        for end in [stdin.read, stdout.write, stderr.write] { try? end.close() }
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        let inputWriter = InputWriter(stdin.write, input)
        let errorData = ErrorCollector(stderr.read)
        let outputData = stdout.read.readDataToEndOfFile()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // Exited: its status; killed by a signal: 128 + the signal, as a shell reports it.
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + status & 0x7F
        return Result(
            status: code, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData.finish(), as: UTF8.self), inputError: inputWriter.finish())
    }

    /// Starts `arguments` (the first is the program's path) in `directory` with `environment`,
    /// standard input, output and error on the descriptors given (or output to `outputFile`),
    /// every signal at its default and none blocked, as a shell would start it.
    private static func spawn(
        _ arguments: [String], in directory: String?, environment: [String: String], stdin: Int32, stdout: Int32,
        stderr: Int32, outputFile: String?
    ) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        if let outputFile {
            posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        }
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        if let directory {
            guard let addChdir = addChdir, addChdir(&actions, directory) == 0 else {
                throw POSIXError(.ENOSYS)
            }
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, &envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        return pid
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), which Swift's Glibc module
    /// leaves out; looked up by name, as ``pipe2`` is.
    private static let addChdir:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32)? = {
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addchdir_np") else { return nil }
            return unsafeBitCast(
                symbol,
                to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32)
                    .self)
        }()

    /// As ``run(_:input:in:)`` with text input.
    package static func run(_ arguments: [String], input: String, in directory: String? = nil) throws -> Result {
        try run(arguments, input: Data(input.utf8), in: directory)
    }

    /// glibc's `pipe2`, which makes both ends close-on-exec atomically (a `pipe` then `fcntl`
    /// leaves a moment in which another thread's spawn inherits them). Swift's Glibc module leaves
    /// it out (it is declared only under `_GNU_SOURCE`), so it is looked up by name.
    private static let pipe2: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pipe2") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
    }()

    /// A pipe whose ends close on exec. Foundation's `Pipe` leaves them inheritable, so a server
    /// that another test started at the same moment (a mock, PostgreSQL, a gateway) could keep a
    /// copy of a child's standard input open for its whole life: the child never saw the end of
    /// its input and was killed at the timeout with its last output unflushed (a batch test in CI,
    /// 9,721 of 9,897 lines). The child's own copies, made by `dup2` at spawn, stay open.
    private static func closeOnExecPipe() throws -> (read: FileHandle, write: FileHandle) {
        var ends: [Int32] = [0, 0]
        guard let pipe2 = pipe2, pipe2(&ends, O_CLOEXEC) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return (
            FileHandle(fileDescriptor: ends[0], closeOnDealloc: true),
            FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        )
    }

    /// Writes the child's standard input on its own thread, then closes it, and says whether all
    /// of it was written.
    private final class InputWriter: @unchecked Sendable {
        private var failure: String?
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle, _ input: Data) {
            Thread {
                do {
                    try handle.write(contentsOf: input)
                } catch {
                    self.failure = "\(error)"
                }
                try? handle.close()
                self.done.signal()
            }.start()
        }

        /// Why the input was not written in full, once the writer is done (at most 10 s after the
        /// child ended), or nil when it was.
        func finish() -> String? {
            guard done.wait(timeout: .now() + 10) == .success else { return "still writing 10 s after the child ended" }
            return failure
        }
    }

    /// Drains a pipe on its own thread so that neither pipe can fill and block the child.
    private final class ErrorCollector: @unchecked Sendable {
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread {
                self.data = handle.readDataToEndOfFile()
                self.done.signal()
            }.start()
        }

        func finish() -> Data {
            done.wait()
            return data
        }
    }
}
