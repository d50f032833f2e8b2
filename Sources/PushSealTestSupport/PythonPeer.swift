package import Foundation

/// The Python implementation in `interop/python`, in a virtual environment made once from PyPI
/// and cached under `.build/interop-venv` (rebuilt when `requirements.txt` changes).
package enum PythonPeer {
    /// The module's directory.
    package static let directory = TestVectors.packageRoot.appendingPathComponent("interop/python")
    static let environment = TestVectors.packageRoot.appendingPathComponent(".build/interop-venv")

    /// The environment's interpreter, made on first use by `make python-peer` (which `make test`
    /// runs first) when it is missing or older than `requirements.txt`.
    package static let interpreter: Result<URL, PeerUnavailable> = {
        let python = environment.appendingPathComponent("bin/python")
        let requirements = directory.appendingPathComponent("requirements.txt")
        let stamp = environment.appendingPathComponent("requirements.stamp")
        let current =
            FileManager.default.isExecutableFile(atPath: python.path)
            && (try? String(contentsOf: stamp, encoding: .utf8))
                == (try? String(contentsOf: requirements, encoding: .utf8))
        if !current {
            let made = try? run("/usr/bin/env", ["make", "-s", "-C", TestVectors.packageRoot.path, "python-peer"])
            guard made?.status == 0 else {
                return .failure(
                    PeerUnavailable(reason: "`make python-peer` failed: \(made?.errors ?? "make is missing")"))
            }
        }
        return .success(python)
    }()

    /// Why the peer could not be set up.
    package struct PeerUnavailable: Error, CustomStringConvertible {
        /// What failed.
        package let reason: String
        package var description: String { "the Python peer is unavailable: \(reason)" }
    }

    /// Runs `pushseal.py arguments…` with `input` on standard input.
    package static func pushseal(_ arguments: [String], input: String = "", in workingDirectory: String? = nil) throws
        -> CLIRunner.Result
    {
        try script("pushseal.py", arguments, input: input, in: workingDirectory)
    }

    /// Runs `pushseal_media.py arguments…`, the independent media-v1 implementation.
    package static func media(_ arguments: [String], in workingDirectory: String? = nil) throws -> CLIRunner.Result {
        try script("pushseal_media.py", arguments, in: workingDirectory)
    }

    /// Runs `pushseal_fetch.py arguments…`, the second implementation of fetched content.
    package static func fetch(_ arguments: [String]) throws -> CLIRunner.Result {
        try script("pushseal_fetch.py", arguments, in: nil)
    }

    /// Runs `pushseal_receipt.py arguments…`, the second implementation of receipts.
    package static func receipt(_ arguments: [String], input: String = "", in workingDirectory: String? = nil) throws
        -> CLIRunner.Result
    {
        try script("pushseal_receipt.py", arguments, input: input, in: workingDirectory)
    }

    /// Runs `webpush_peer.py arguments…` (http_ece's RFC 8291) with JSON Lines on standard input.
    package static func webPush(_ arguments: [String], input: String) throws -> CLIRunner.Result {
        try script("webpush_peer.py", arguments, input: input, in: nil)
    }

    private static func script(
        _ name: String, _ arguments: [String], input: String = "", in workingDirectory: String?
    ) throws -> CLIRunner.Result {
        let python = try interpreter.get()
        return try run(
            python.path, [directory.appendingPathComponent(name).path] + arguments, input: input, in: workingDirectory)
    }

    static func run(_ executable: String, _ arguments: [String], input: String = "", in workingDirectory: String? = nil)
        throws -> CLIRunner.Result
    {
        try CLIRunner.run(
            executable: URL(fileURLWithPath: executable), arguments, input: Data(input.utf8), in: workingDirectory)
    }
}
