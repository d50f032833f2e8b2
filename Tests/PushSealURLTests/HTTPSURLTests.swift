import PushSealURL
import Testing

@Suite("HTTPS URLs")
struct HTTPSURLTests {
    @Test("host, port and request target are taken apart; the fragment is dropped")
    func parts() throws {
        let url = try HTTPSURL("https://CDN.Example.com:8443/a/b.psm?x=1#frag")
        #expect(url.host == "cdn.example.com" && url.port == 8443 && url.target == "/a/b.psm?x=1")
        #expect(url.authority == "cdn.example.com:8443" && !url.hostIsAddress)
        let bare = try HTTPSURL("https://example.com")
        #expect(bare.port == 443 && bare.target == "/" && bare.authority == "example.com")
        let query = try HTTPSURL("https://example.com?q")
        #expect(query.target == "/?q")
        let fragment = try HTTPSURL("https://example.com:444#top")
        #expect(fragment.host == "example.com" && fragment.port == 444 && fragment.target == "/")
        let v6 = try HTTPSURL("https://[::1]:9/x")
        #expect(v6.host == "::1" && v6.port == 9 && v6.authority == "[::1]:9" && v6.hostIsAddress)
        #expect(try HTTPSURL("https://127.0.0.1/").hostIsAddress)
    }

    @Test(
        "anything but https is insecure; a malformed URL says what is wrong",
        arguments: [
            ("http://example.com/x", HTTPSURL.Refusal.Kind.insecure),
            ("ftp://example.com/x", .insecure),
            ("HTTPS://example.com/x", nil),
            ("https://user:pass@example.com/x", .malformed),
            ("https://example.com:0/x", .malformed),
            ("https://example.com:65536/x", .malformed),
            ("https://example.com:/x", .malformed),
            ("https://example.com:1:2/x", .malformed),
            ("https:///x", .malformed),
            ("https://exa mple.com/x", .malformed),
            ("https://example.com/a\r\nHost: evil", .malformed),
            ("https://exämple.com/x", .malformed),
            ("https://[::1/x", .malformed),
            ("https://[1.1]:8443/x", .malformed),
            ("https://[:::]/x", .malformed),
            ("https://[::1]x/", .malformed),
            ("https://ex_ample.com/x", .malformed),
            ("example.com/x", .malformed),
            // A numeric host only as canonical dotted decimal (getaddrinfo and OpenSSL differ on the rest).
            ("https://0177.0.0.1/x", .malformed),
            ("https://127.1/x", .malformed),
            ("https://0x7f.0.0.1/x", .malformed),
            ("https://2130706433/x", .malformed),
            ("https://127.0.0.01/x", .malformed),
            ("https://256.0.0.1/x", .malformed),
            ("https://1.2.3.4.5/x", .malformed),
            ("https://cdn.0x10/x", .malformed),
            ("https://127.0.0.1/x", nil),
            ("https://10.0.0.0/x", nil),
            ("https://cdn7.example/x", nil),
            ("https://7cdn.example/x", nil),
            // What the sealer used to accept and the device always refused.
            ("https://user@cdn/x", .malformed),
            ("https://cdn:0/x", .malformed),
            ("https://%65vil/x", .malformed),
        ])
    func refused(_ text: String, _ kind: HTTPSURL.Refusal.Kind?) {
        do {
            _ = try HTTPSURL(text)
            #expect(kind == nil, "\(text) was accepted")
        } catch {
            #expect(error.kind == kind, "\(text): \(error)")
        }
    }

    @Test(
        "a Location is resolved against the URL it answered (RFC 3986, section 5.2)",
        arguments: [
            ("https://other.example/y", "https://other.example/y"),
            ("//other.example:444/y", "https://other.example:444/y"),
            ("/root?q=1", "https://cdn.example/root?q=1"),
            ("sibling.psm", "https://cdn.example/a/b/sibling.psm"),
            ("../up.psm", "https://cdn.example/a/up.psm"),
            ("./same.psm#f", "https://cdn.example/a/b/same.psm"),
            ("?other", "https://cdn.example/a/b/c.psm?other"),
            ("", "https://cdn.example/a/b/c.psm?q"),
            ("/x/../../y/.", "https://cdn.example/y/"),
        ])
    func resolved(_ location: String, _ expected: String) throws {
        let base = try HTTPSURL("https://cdn.example/a/b/c.psm?q")
        #expect(try base.resolving(location).description == expected)
    }

    @Test("a redirect out of https is insecure, whatever its spelling")
    func insecureRedirects() throws {
        let base = try HTTPSURL("https://cdn.example/a")
        for location in ["http://cdn.example/a", "HTTP://cdn.example/a", "javascript:alert(1)", "file:///etc/passwd"] {
            #expect(throws: HTTPSURL.Refusal.self) { try base.resolving(location) }
            do { _ = try base.resolving(location) } catch { #expect(error.kind == .insecure, "\(location)") }
        }
    }
}
