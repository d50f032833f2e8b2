/// Comparisons whose running time does not depend on where two byte strings differ.
package enum ConstantTime {
    /// True when `lhs` and `rhs` hold the same bytes; lengths are compared first and are not secret.
    package static func equals(_ lhs: some ContiguousBytes, _ rhs: some ContiguousBytes) -> Bool {
        lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                guard left.count == right.count else { return false }
                guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
                return SecureMemory.equal(leftBase, rightBase, left.count)
            }
        }
    }
}

/// Anything that can lend its bytes as one contiguous buffer.
package protocol ContiguousBytes {
    /// Calls `body` with the bytes.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
}

extension Array: ContiguousBytes where Element == UInt8 {}
extension ArraySlice: ContiguousBytes where Element == UInt8 {}
extension SecretBytes: ContiguousBytes {}

extension ContiguousBytes {
    /// Calls `body` with a pointer that is never nil, as C `nonnull` parameters require
    /// (a scratch byte stands in for an empty input), and the byte count.
    func withNonNullBytes<Result>(_ body: (UnsafePointer<UInt8>, Int) throws -> Result) rethrows -> Result {
        try withUnsafeBytes { raw in
            if let base = raw.baseAddress {
                return try body(base.assumingMemoryBound(to: UInt8.self), raw.count)
            }
            return try withUnsafePointer(to: UInt8(0)) { try body($0, 0) }
        }
    }
}
