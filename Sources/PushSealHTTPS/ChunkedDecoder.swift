/// The chunked transfer coding (RFC 9112, section 7.1), decoded as bytes arrive: each chunk's
/// data is handed on at once, so memory stays constant whatever the body's size. Chunk
/// extensions are skipped; trailer fields are read and dropped. Strict: hexadecimal sizes of at
/// most 15 digits, CRLF line ends, size lines and trailers of at most 1 KiB each.
package struct ChunkedDecoder {
    private enum State {
        case sizeLine
        case data(remaining: Int)
        case dataEnd(sawCR: Bool)
        case trailer
        case finished
    }

    private var state = State.sizeLine
    /// The line being read (a size line or a trailer), without its CRLF.
    private var line: [UInt8] = []

    /// The most bytes in a size line or a trailer field.
    static let maximumLineByteCount = 1024

    /// A decoder at the start of a body.
    package init() {}

    /// Whether the last chunk and the trailers have arrived: the body is complete.
    package var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Decodes `bytes`, handing each run of data to `body`; bytes after the end are ignored.
    /// - Returns: false if `body` returned false (stop).
    /// - Throws: `malformed`, saying what is wrong.
    package mutating func feed(
        _ bytes: UnsafeRawBufferPointer, body: (UnsafeRawBufferPointer) -> Bool
    ) throws(HTTPSFailure) -> Bool {
        var index = 0
        while index < bytes.count {
            switch state {
            case .finished:
                return true
            case .data(let remaining):
                let count = min(remaining, bytes.count - index)
                guard body(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)])) else { return false }
                index += count
                state = remaining == count ? .dataEnd(sawCR: false) : .data(remaining: remaining - count)
            case .dataEnd(let sawCR):
                let byte = bytes[index]
                index += 1
                if !sawCR && byte == 0x0D {
                    state = .dataEnd(sawCR: true)
                } else if sawCR && byte == 0x0A {
                    state = .sizeLine
                } else {
                    throw HTTPSFailure(.malformed, "a chunk's data is not followed by CRLF")
                }
            case .sizeLine, .trailer:
                let byte = bytes[index]
                index += 1
                guard byte == 0x0A else {
                    line.append(byte)
                    guard line.count <= Self.maximumLineByteCount else {
                        throw HTTPSFailure(.malformed, "a chunk size line or trailer is over 1 KiB")
                    }
                    continue
                }
                guard line.last == 0x0D else { throw HTTPSFailure(.malformed, "a bare LF in the chunked body") }
                line.removeLast()
                try endLine()
                line.removeAll(keepingCapacity: true)
            }
        }
        return true
    }

    /// A complete size line or trailer line has arrived.
    private mutating func endLine() throws(HTTPSFailure) {
        if case .trailer = state {
            if line.isEmpty { state = .finished }
            return
        }
        let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: " ") && $0 != 0x09 }
        guard (1...15).contains(digits.count), let size = Int(String(decoding: digits, as: UTF8.self), radix: 16),
            digits.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) })
        else {
            throw HTTPSFailure(
                .malformed,
                "the chunk size \(String(decoding: line, as: UTF8.self).debugDescription) is not hexadecimal")
        }
        state = size == 0 ? .trailer : .data(remaining: size)
    }
}
