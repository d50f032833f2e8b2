import PushSealBenchStatistics
import PushSealCore
import PushSealPrimitives

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Media objects: seal and open throughput against their floor — the same ChaCha20-Poly1305 and
/// SHA-256 calls over the same 64 KiB chunks, with no stream around them — and the peak RSS of
/// one `pushseal decrypt --media-dir` that fetches and opens a 50 MB video from a local server.
enum MediaBench {
    struct Result {
        /// Sealing the sample against its floor.
        let seal: RateComparison
        /// Opening the sample against its floor.
        let open: RateComparison
        /// One decrypt that fetches the 50 MB video, when the server could be started.
        let fetch: CLIBench.DecryptResult?
    }

    /// The in-memory sample: 8 MB of "video".
    static let sampleLength = 8_000_000

    static func run(cli: String, python: String) throws -> Result {
        let media = [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [UInt8](repeating: 0x5A, count: sampleLength - 12)
        var object: [UInt8] = []
        var descriptor: MediaDescriptor?
        func seal() throws {
            object.removeAll(keepingCapacity: true)
            let sealer = try MediaStreamSealer(type: .mpeg4Video, length: media.count)
            try media.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let end = min(bytes.count, offset + MediaObject.chunkByteCount)
                    try sealer.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) { object += $0 }
                    offset = end
                }
            }
            descriptor = try sealer.finish(url: "https://bench.invalid/v") { object += $0 }
        }
        let key = SecretBytes(randomCount: 32)
        let aad = [UInt8](repeating: 1, count: 40)
        let chunks = stride(from: 0, to: media.count, by: MediaObject.chunkByteCount).map {
            Array(media[$0..<min(media.count, $0 + MediaObject.chunkByteCount)])
        }
        func sealFloor() throws {
            let hasher = SHA256.Hasher()
            for (index, chunk) in chunks.enumerated() {
                let sealed = try AEAD.chaCha20Poly1305.seal(
                    key: key, nonce: Self.nonce(index), aad: aad, plaintext: chunk)
                sealed.withUnsafeBytes { hasher.update($0) }
            }
            _ = hasher.finalize()
        }
        let sealComparison = try CorePinning.onOneCore { _ in
            try Stopwatch.compare(rounds: 11, roundSeconds: 0.2, seal, sealFloor)
        }
        let sealedChunks = try chunks.enumerated().map { index, chunk in
            try AEAD.chaCha20Poly1305.seal(key: key, nonce: Self.nonce(index), aad: aad, plaintext: chunk)
        }
        guard let descriptor else { throw CryptoFailure.library("no descriptor") }
        func open() throws {
            let opener = MediaStreamOpener(descriptor: descriptor)
            var written = 0
            try object.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let end = min(bytes.count, offset + MediaObject.chunkByteCount)
                    try opener.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) { written += $0.count }
                    offset = end
                }
            }
            try opener.finish()
        }
        func openFloor() throws {
            let hasher = SHA256.Hasher()
            for (index, sealed) in sealedChunks.enumerated() {
                sealed.withUnsafeBytes { hasher.update($0) }
                _ = try AEAD.chaCha20Poly1305.open(key: key, nonce: Self.nonce(index), aad: aad, ciphertext: sealed)
            }
            _ = hasher.finalize()
        }
        let openComparison = try CorePinning.onOneCore { _ in
            try Stopwatch.compare(rounds: 11, roundSeconds: 0.2, open, openFloor)
        }
        return Result(seal: sealComparison, open: openComparison, fetch: fetchVideo(cli: cli, python: python))
    }

    private static func nonce(_ index: Int) -> [UInt8] {
        (0..<12).map { $0 == 10 ? UInt8(truncatingIfNeeded: index) : 0 }
    }

    /// One `pushseal decrypt --media-dir` fetching a 50 MB MPEG-4 video from media_server.py.
    static func fetchVideo(cli: String, python: String) -> CLIBench.DecryptResult? {
        let work = "/tmp/pushseal-bench-media-\(getpid())"
        _ = ProcessBench.run(["rm", "-rf", work])
        _ = ProcessBench.run(["mkdir", "-p", "\(work)/served", "\(work)/inbox"])
        defer { _ = ProcessBench.run(["rm", "-rf", work]) }
        guard let file = fopen("\(work)/video.mp4", "w") else { return nil }
        var block = [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [UInt8](repeating: 0x33, count: 65_536 - 12)
        var remaining = 50_000_000
        while remaining > 0 {
            let count = min(remaining, block.count)
            _ = block.withUnsafeBytes { fwrite($0.baseAddress, 1, count, file) }
            remaining -= count
            block = [UInt8](repeating: 0x33, count: 65_536)
        }
        fclose(file)
        guard let server = MediaServerProcess(python: python, work: work) else { return nil }
        defer { server.stop() }
        let (port, certificate) = (server.port, server.certificate)
        let sealed = ProcessBench.run([
            cli, "media", "seal", "\(work)/video.mp4", "--out", "\(work)/served/video.psm", "--url",
            "https://127.0.0.1:\(port)/files/video.psm",
        ])
        let descriptorPath = ProcessBench.temporaryFile("video.json", sealed.output)
        let store = "\(work)/store"
        _ = ProcessBench.run([cli, "keys", "init", "--store", store])
        let keyPath = ProcessBench.temporaryFile(
            "video-device.jwk", ProcessBench.run([cli, "keys", "rotate", "--store", store]).output)
        let payloadPath = ProcessBench.temporaryFile("video-payload.json", Array(#"{"aps":{"alert":"Video"}}"#.utf8))
        let outer = ProcessBench.run([cli, "encrypt", "--to", keyPath, "--media", descriptorPath, payloadPath])
        let outerPath = ProcessBench.temporaryFile("video-sealed.json", outer.output)
        let run = CLIBench.measured(
            [
                cli, "decrypt", "--store", store, "--media-dir", "\(work)/inbox", "--allow-local-media", "--ca-file",
                certificate, outerPath,
            ],
            report: "\(work)/time")
        _ = ProcessBench.run(["rm", "-f", descriptorPath, keyPath, payloadPath, outerPath])
        guard let run, String(decoding: run.output, as: UTF8.self).contains("\"attachment\"") else { return nil }
        return run.result
    }
}
