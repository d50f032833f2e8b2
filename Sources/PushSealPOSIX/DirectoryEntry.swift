#if canImport(Glibc)
    package import Glibc
#elseif canImport(Darwin)
    package import Darwin
#endif

extension dirent {
    /// The entry's file name (`d_name` up to its NUL).
    package var name: String {
        withUnsafeBytes(of: d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
