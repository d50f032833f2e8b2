package import Foundation

/// The Python implementation in `interop/python`, in a virtual environment made once from PyPI
/// and cached under `.build/interop-venv` (rebuilt when `requirements.txt` changes).
package enum PythonPeer {
    /// The module's directory.
    package static let directory = SharedVectors.packageRoot.appendingPathComponent("interop/python")
    static let environment = SharedVectors.packageRoot.appendingPathComponent(".build/interop-venv")

    /// The environment's interpreter, made on first use; nil with the reason when it cannot be made.
    package static let interpreter: Result<URL, PeerUnavailable> = {
        let python = environment.appendingPathComponent("bin/python")
        let requirements = directory.appendingPathComponent("requirements.txt")
        let stamp = environment.appendingPathComponent("requirements.stamp")
        let wanted = (try? String(contentsOf: requirements, encoding: .utf8)) ?? ""
        if FileManager.default.isExecutableFile(atPath: python.path),
            (try? String(contentsOf: stamp, encoding: .utf8)) == wanted
        {
            return .success(python)
        }
        try? FileManager.default.removeItem(at: environment)
        let steps: [[String]] = [
            ["python3", "-m", "venv", environment.path],
            [python.path, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", requirements.path],
        ]
        for step in steps {
            guard let result = try? run("/usr/bin/env", step), result.status == 0 else {
                return .failure(PeerUnavailable(reason: "`\(step.joined(separator: " "))` failed"))
            }
        }
        try? wanted.write(to: stamp, atomically: true, encoding: .utf8)
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
        let python = try interpreter.get()
        let script = directory.appendingPathComponent("pushseal.py").path
        return try run(python.path, [script] + arguments, input: input, in: workingDirectory)
    }

    static func run(_ executable: String, _ arguments: [String], input: String = "", in workingDirectory: String? = nil)
        throws -> CLIRunner.Result
    {
        try CLIRunner.run(
            executable: URL(fileURLWithPath: executable), arguments, input: Data(input.utf8), in: workingDirectory)
    }
}
