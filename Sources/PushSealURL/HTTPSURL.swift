#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An https URL taken apart for one request: the host to connect to, the port, and the request
/// target (path and query). Strict, since the URL and every redirect come from the sender and
/// the CDN: printable ASCII only, no user info, a port in 1...65535, a numeric host only as
/// canonical dotted decimal; the fragment is dropped.
///
/// The one media URL rule (media-v1.md): the sealer checks a descriptor's `url` with it
/// (`MediaDescriptor`), and the Linux fetcher parses the URL and every redirect with it, so that
/// nothing sealed is a URL the device refuses.
package struct HTTPSURL: Equatable, Sendable, CustomStringConvertible {
    /// Why a URL is refused.
    package struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// The two ways a URL fails.
        package enum Kind: Sendable {
            /// Not https (another scheme, or a redirect that leaves https).
            case insecure
            /// Does not parse, or breaks the rule.
            case malformed
        }

        /// Which.
        package let kind: Kind
        /// The URL and what is wrong with it.
        package let detail: String

        init(_ kind: Kind, _ detail: String) {
            self.kind = kind
            self.detail = detail
        }

        package var description: String { detail }
    }

    /// The host, lowercased; an IPv6 address without its brackets.
    package let host: String
    /// The TCP port (443 unless the URL names one).
    package let port: Int
    /// The request target: the path, starting with "/", and the query.
    package let target: String

    /// Parses `text`.
    /// - Throws: `insecure` for any scheme but https, `malformed` for anything else wrong.
    package init(_ text: String) throws(Refusal) {
        let bytes = Array(text.utf8)
        try Self.checkCharacters(bytes, in: text)
        guard URLScheme.begins(bytes), let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else {
            throw Refusal(.malformed, "\(text) is not an absolute URL")
        }
        guard String(decoding: bytes[..<colon], as: UTF8.self).lowercased() == "https" else {
            throw Refusal(.insecure, "\(text) is not https")
        }
        guard bytes[colon...].starts(with: "://".utf8) else {
            throw Refusal(.malformed, "\(text) has no host")
        }
        let rest = bytes[(colon + 3)...]
        let authorityEnd =
            rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") })
            ?? rest.endIndex
        let (host, port) = try Self.authority(rest[..<authorityEnd], in: text)
        self.host = host
        self.port = port
        target = Self.requestTarget(rest[authorityEnd...])
    }

    private init(host: String, port: Int, target: String) {
        self.host = host
        self.port = port
        self.target = target
    }

    /// Whether the host is an IP address (no name to send in SNI; the certificate must name the address).
    package var hostIsAddress: Bool {
        host.contains(":") || host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }
    }

    /// Whether the host is an IP address that ``LocalAddress`` calls local (a name is not: what it
    /// resolves to is checked as a connection is made).
    package var hostIsLocalAddress: Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return LocalAddress.isLocal(ipv4: withUnsafeBytes(of: &v4) { Array($0) })
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return LocalAddress.isLocal(ipv6: withUnsafeBytes(of: &v6) { Array($0) })
        }
        return false
    }

    /// The `Host` header's value: the host, bracketed if IPv6, and the port unless it is 443.
    package var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? name : "\(name):\(port)"
    }

    package var description: String { "https://\(authority)\(target)" }

    /// The URL a `Location` header points to, resolved against this one (RFC 3986, section 5.2).
    /// - Throws: `insecure` if it leaves https, `malformed` if it does not parse.
    package func resolving(_ location: String) throws(Refusal) -> HTTPSURL {
        // The result is checked whole against the rule, as a URL of its own: a relative target
        // can make a URL that breaks it (over 4096 characters).
        let resolved = try resolvingReference(location)
        return resolved == self ? self : try HTTPSURL(resolved.description)
    }

    private func resolvingReference(_ location: String) throws(Refusal) -> HTTPSURL {
        if location.isEmpty { return self }
        let bytes = Array(location.utf8)
        try Self.checkCharacters(bytes, in: location)
        if URLScheme.begins(bytes) { return try HTTPSURL(location) }
        if location.hasPrefix("//") { return try HTTPSURL("https:" + location) }
        let reference = Self.requestTarget(bytes[...])
        if location.hasPrefix("/") {
            return HTTPSURL(host: host, port: port, target: Self.removingDotSegments(reference))
        }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        if location.hasPrefix("?") {
            return HTTPSURL(host: host, port: port, target: String(path) + reference.dropFirst())
        }
        let directory = path[...(path.lastIndex(of: "/") ?? path.startIndex)]
        let relative = location.prefix { $0 != "#" }
        return HTTPSURL(host: host, port: port, target: Self.removingDotSegments(String(directory) + relative))
    }

    /// Printable ASCII only: no space, no control character, nothing a header line could break on.
    private static func checkCharacters(_ bytes: [UInt8], in text: String) throws(Refusal) {
        guard !bytes.isEmpty, bytes.count <= 4096, bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Refusal(.malformed, "a URL must be 1 to 4096 printable ASCII characters with no space")
        }
    }

    /// Host and port from `host[:port]` or `[v6]:port`.
    private static func authority(_ bytes: ArraySlice<UInt8>, in text: String) throws(Refusal) -> (String, Int) {
        let authority = String(decoding: bytes, as: UTF8.self).lowercased()
        guard !authority.contains("@") else { throw Refusal(.malformed, "\(text) has user info") }
        var host = Substring(authority)
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw Refusal(.malformed, "\(text) has an unclosed IPv6 address")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else {
                throw Refusal(.malformed, "\(text) has text after its IPv6 address")
            }
            port = after.isEmpty ? nil : after.dropFirst()
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }),
                Self.isIPv6Address(host)
            else {
                throw Refusal(.malformed, "\(text) has an invalid IPv6 address")
            }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw Refusal(.malformed, "\(text) has more than one port") }
            host = parts[0]
            port = parts.count == 2 ? parts[1] : nil
            guard !host.isEmpty, host.utf8.count <= 253,
                host.allSatisfy({ ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") && $0.isASCII })
            else { throw Refusal(.malformed, "\(text) has an invalid host name") }
            try checkNumericHost(host, in: text)
        }
        guard let port else { return (String(host), 443) }
        guard (1...5).contains(port.count), port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port),
            (1...65_535).contains(number)
        else { throw Refusal(.malformed, "\(text) has an invalid port") }
        return (String(host), number)
    }

    /// Whether `text` is an IPv6 address (`inet_pton`): `[1.1]` is not, though its characters are.
    private static func isIPv6Address(_ text: Substring) -> Bool {
        var address = in6_addr()
        return text.contains(":") && inet_pton(AF_INET6, String(text), &address) == 1
    }

    /// A host whose last label is a number (`10`, `0x7f`, `0177`) is what a URL parser or the
    /// resolver reads as an IPv4 address, each its own way (`getaddrinfo` reads `0177` as octal,
    /// OpenSSL's address check as decimal): such a host must be four decimal numbers 0 to 255
    /// without leading zeros, the one spelling every reader agrees on.
    private static func checkNumericHost(_ host: Substring, in text: String) throws(Refusal) {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let last = labels.last(where: { !$0.isEmpty }) ?? ""
        let numeric = !last.isEmpty && (last.allSatisfy(\.isNumber) || last.hasPrefix("0x"))
        guard numeric else { return }
        let canonical =
            labels.count == 4
            && labels.allSatisfy { label in
                (1...3).contains(label.count) && label.allSatisfy(\.isNumber)
                    && (label == "0" || !label.hasPrefix("0")) && (Int(label) ?? 256) <= 255
            }
        guard canonical else {
            throw Refusal(
                .malformed, "\(text) has a numeric host that is not four decimal numbers 0 to 255 without leading zeros"
            )
        }
    }

    /// The path and query, without the fragment, starting with "/".
    private static func requestTarget(_ bytes: ArraySlice<UInt8>) -> String {
        let withoutFragment = bytes.prefix { $0 != UInt8(ascii: "#") }
        let target = String(decoding: withoutFragment, as: UTF8.self)
        return target.hasPrefix("/") ? target : "/" + target
    }

    /// RFC 3986's remove_dot_segments over the path (the query is left alone).
    private static func removingDotSegments(_ target: String) -> String {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var output: [Substring] = []
        let segments = parts[0].split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".": if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default: output.append(segment)
            }
        }
        let path = "/" + output.joined(separator: "/")
        return parts.count == 2 ? path + "?" + parts[1] : path
    }
}
