package import PushSealCore

/// Media for tests: bytes of a type (its magic bytes, then a pattern), sealed in memory.
package enum MediaSamples {
    /// `length` bytes of media of `type`: its magic bytes, then a repeating pattern.
    package static func media(_ type: MediaType, length: Int) -> [UInt8] {
        let magic: [UInt8] =
            switch type {
            case .png: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            case .mpeg4Video: [0, 0, 0, 0x18] + Array("ftypisom".utf8)
            case .wav: Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
            default: [0xFF, 0xD8, 0xFF, 0xE0]
            }
        return Array(
            (magic + (0..<max(0, length - magic.count)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).prefix(length)
        )
    }

    /// Seals `bytes` as `type` in pieces of `piece` bytes.
    package static func seal(_ bytes: [UInt8], as type: MediaType, piece: Int = 10_000) throws -> (
        MediaDescriptor, [UInt8]
    ) {
        let sealer = try MediaStreamSealer(type: type, length: bytes.count)
        var object: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + piece)
            try bytes[offset..<end].withUnsafeBytes { try sealer.append($0) { object += $0 } }
            offset = end
        }
        let descriptor = try sealer.finish(url: "https://cdn.example.com/m") { object += $0 }
        return (descriptor, object)
    }

    /// Opens `object` in pieces of `piece` bytes; the media, or the failure.
    package static func open(_ object: [UInt8], _ descriptor: MediaDescriptor, piece: Int = 7_777) -> Result<
        [UInt8], MediaFailure
    > {
        let opener = MediaStreamOpener(descriptor: descriptor)
        var media: [UInt8] = []
        do {
            var offset = 0
            while offset < object.count {
                let end = min(object.count, offset + piece)
                try object[offset..<end].withUnsafeBytes { try opener.append($0) { media += $0 } }
                offset = end
            }
            try opener.finish()
            return .success(media)
        } catch let failure as MediaFailure {
            return .failure(failure)
        } catch {
            return .failure(MediaFailure(.integrity, "\(error)"))
        }
    }
}
