import PushSealCore
import Testing

/// The UUIDs the toolkit and the gateway make: random ones (version 4) and time-ordered ones
/// (version 7), in RFC 9562's text form.
@Suite("UUIDs")
struct UUIDTests {
    /// Whether `text` is a lower-case UUID of `version` with RFC 9562's variant.
    static func isUUID(_ text: String, version: Character) -> Bool {
        let characters = Array(text)
        guard characters.count == 36 else { return false }
        for (index, character) in characters.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard character == "-" else { return false }
            } else if !"0123456789abcdef".contains(character) {
                return false
            }
        }
        return characters[14] == version && "89ab".contains(characters[19])
    }

    @Test("a random UUID is version 4 with the RFC's variant, and no two are alike")
    func random() {
        let made = (0..<1_000).map { _ in RandomUUID.make() }
        #expect(made.allSatisfy { Self.isUUID($0, version: "4") })
        #expect(Set(made).count == made.count)
    }

    @Test("a time-ordered UUID starts with its milliseconds (RFC 9562's example time), is version 7, and sorts by time")
    func timeOrdered() {
        // RFC 9562, appendix A.6: 2022-02-22 19:22:22 UTC is 0x017F22E279B0 milliseconds.
        let example = TimeOrderedUUID.make(milliseconds: 0x017F_22E2_79B0)
        #expect(example.hasPrefix("017f22e2-79b0-7"), "\(example)")
        #expect(Self.isUUID(example, version: "7"))
        let sameTime = (0..<1_000).map { _ in TimeOrderedUUID.make(milliseconds: 1_764_000_000_000) }
        #expect(Set(sameTime).count == sameTime.count, "74 random bits tell ids of one millisecond apart")
        let times: [Int64] = [0, 1, 255, 256, 65_535, 1_764_000_000_000, 1_764_000_000_001, 0xFFFF_FFFF_FFFF]
        let ordered = times.map { TimeOrderedUUID.make(milliseconds: $0) }
        #expect(ordered == ordered.sorted(), "a later millisecond sorts after, as text")
        #expect(TimeOrderedUUID.make(milliseconds: 0).hasPrefix("00000000-0000-7"))
        #expect(TimeOrderedUUID.make(milliseconds: 0xFFFF_FFFF_FFFF).hasPrefix("ffffffff-ffff-7"))
    }
}
