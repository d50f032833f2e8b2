internal import PushSealURL

/// Reads the `name=value` parameters of a request header, for the two grammars the relay meets:
/// RFC 7235 §2.1's auth-params (`vapid t=…, k=…`: one list, separated by commas) and the legacy
/// Web Push headers' (`Encryption: salt=…;rs=…`, `Crypto-Key: dh=…;p256ecdsa=…`: entries
/// separated by commas, each of parameters separated by semicolons;
/// draft-ietf-httpbis-encryption-encoding-03 §3–4).
///
/// White space around names, values and separators is skipped; names are compared without case
/// (lowered here); a value is a token or a quoted string (unescaped here). A header that does not
/// follow the grammar, or names a parameter twice in one entry, reads as nil.
enum HeaderParameters {
    /// The auth-params of `text`: one entry, parameters separated by commas.
    static func authParameters(_ text: Substring.UTF8View) -> [String: String]? {
        guard let entries = entries(Array(text), parameterSeparator: UInt8(ascii: ","), entrySeparator: nil) else {
            return nil
        }
        return entries.first ?? [:]
    }

    /// The entries of `text`, separated by commas, each a dictionary of its parameters, separated
    /// by semicolons. Empty entries are skipped.
    static func entries(_ text: String) -> [[String: String]]? {
        entries(Array(text.utf8), parameterSeparator: UInt8(ascii: ";"), entrySeparator: UInt8(ascii: ","))
    }

    private static func entries(_ bytes: [UInt8], parameterSeparator: UInt8, entrySeparator: UInt8?)
        -> [[String: String]]?
    {
        var entries: [[String: String]] = []
        var current: [String: String] = [:]
        var index = 0
        func skipSpaces() { while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 } }
        func run(while accepted: (UInt8) -> Bool) -> [UInt8] {
            let start = index
            while index < bytes.count, accepted(bytes[index]) { index += 1 }
            return Array(bytes[start..<index])
        }
        func endEntry() {
            if !current.isEmpty { entries.append(current) }
            current = [:]
        }
        while true {
            skipSpaces()
            while index < bytes.count, bytes[index] == parameterSeparator || bytes[index] == entrySeparator {
                if bytes[index] == entrySeparator { endEntry() }
                index += 1
                skipSpaces()
            }
            guard index < bytes.count else {
                endEntry()
                return entries
            }
            let name = run(while: HTTPToken.isCharacter).map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }
            skipSpaces()
            guard !name.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
            index += 1
            skipSpaces()
            var value: [UInt8]
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                value = []
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\") { index += 1 }
                    guard index < bytes.count else { return nil }
                    value.append(bytes[index])
                    index += 1
                }
                guard index < bytes.count else { return nil }
                index += 1
            } else {
                value = run(while: {
                    $0 > 0x20 && $0 < 0x7F && $0 != parameterSeparator && $0 != entrySeparator
                })
            }
            let key = String(decoding: name, as: UTF8.self)
            guard current[key] == nil else { return nil }
            current[key] = String(decoding: value, as: UTF8.self)
            skipSpaces()
            guard index == bytes.count || bytes[index] == parameterSeparator || bytes[index] == entrySeparator else {
                return nil
            }
        }
    }
}
