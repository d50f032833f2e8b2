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

    /// Runs any program, capturing both outputs.
    package static func run(
        executable: URL, _ arguments: [String], input: Data, in directory: String?, outputFile: String? = nil,
        environment: [String: String] = [:]
    ) throws -> Result {
        _ = pipeSignalIgnored
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let stdin = try closeOnExecPipe()
        let stdout = try closeOnExecPipe()
        let stderr = try closeOnExecPipe()
        process.standardInput = stdin.read
        process.standardOutput =
            try outputFile.map { try FileHandle(forWritingTo: URL(fileURLWithPath: $0)) } ?? stdout.write
        process.standardError = stderr.write
        try process.run()
        // The child has its own copies now; the parent keeps only its ends.
        for end in [stdin.read, stdout.write, stderr.write] { try? end.close() }
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds, execute: watchdog)
        defer { watchdog.cancel() }
        let inputWriter = InputWriter(stdin.write, input)
        let errorData = ErrorCollector(stderr.read)
        let outputData = stdout.read.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData.finish(), as: UTF8.self), inputError: inputWriter.finish())
    }

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
