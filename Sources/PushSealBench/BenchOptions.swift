#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--cli PATH --gateway PATH --python PATH --payload PATH --output PATH --batch-lines N
/// [--suites-only yes] [--send-only yes] [--gateway-only yes] [--gateway-instructions yes] [--fetch-only yes]
/// [--receipts-only yes]
/// [--profile SUITE-MODE-OPERATION [--profile-rounds N]]`.
struct BenchOptions {
    var cli = ".build/release/pushseal"
    var gateway = ".build/release/pushseal-gateway"
    var python = ".build/interop-venv/bin/python"
    var payload = "examples/order-1.5k.json"
    var output = "bench/results.json"
    var batchLines = 20_000
    /// Only the primitives, the suites and one decrypt's RSS: for a second backend's rows.
    var suitesOnly = false
    /// Only delivery (`send`, at once and at 50 ms), printed and written alone: `make bench-send`.
    var sendOnly = false
    /// Only the gateway, on SQLite and on PostgreSQL with one instance: `make bench-gateway`.
    var gatewayOnly = false
    /// Only the gateway's instructions per push, under callgrind: `make bench-gateway-instructions`.
    var gatewayInstructions = false
    /// Only a fetched push's decrypt against an inline one's: `make bench-fetch`.
    var fetchOnly = false
    /// Only the gateway with receipts against without: `make bench-receipts`.
    var receiptsOnly = false
    /// Only this work, for a profiler: `x25519-base-open`, `p256-auth-seal-floor`, …
    var profile: String?
    /// How many times `profile` runs: enough for callgrind by default; a sampling profiler wants more.
    var profileRounds = 2_000

    init(_ arguments: ArraySlice<String>) {
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            guard let value = iterator.next() else { break }
            switch flag {
            case "--cli": cli = value
            case "--gateway": gateway = value
            case "--python": python = value
            case "--payload": payload = value
            case "--output": output = value
            case "--batch-lines": batchLines = Int(value) ?? batchLines
            case "--suites-only": suitesOnly = value == "yes"
            case "--send-only": sendOnly = value == "yes"
            case "--gateway-only": gatewayOnly = value == "yes"
            case "--gateway-instructions": gatewayInstructions = value == "yes"
            case "--fetch-only": fetchOnly = value == "yes"
            case "--receipts-only": receiptsOnly = value == "yes"
            case "--profile": profile = value
            case "--profile-rounds": profileRounds = Int(value) ?? profileRounds
            default: printError("bench: ignoring unknown option \(flag)\n")
            }
        }
    }
}

/// The whole file, or nil.
func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { return bytes }
        bytes += buffer[0..<count]
    }
}

/// Writes `bytes` to the file at `path`, replacing it; nothing when it cannot be opened.
func writeFile(_ path: String, _ bytes: [UInt8]) {
    guard let file = fopen(path, "w") else { return }
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
}

/// Writes `message` to standard error.
func printError(_ message: String) {
    var bytes = Array(message.utf8)
    _ = write(2, &bytes, bytes.count)
}
