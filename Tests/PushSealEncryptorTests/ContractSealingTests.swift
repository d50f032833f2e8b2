import PushSealCore
import Testing

@testable import PushSealEncryptor

@Suite("Payload contract, server side")
struct ContractSealingTests {
    static let contract: PayloadContract = {
        // swift-format-ignore: NeverUseForceTry
        try! PayloadContract(
            json: Array(
                #"""
                {"schema_versions":[1],"links":["help_url"],"text":["note"],
                 "routes":{"order":{"id":"uuid","thread-id":"order:{id}","collapse-id":"order:{id}"},
                           "invoice":{"id":"integer","links":["pdf_url"],"text":["memo"]},"inbox":{}}}
                """#.utf8))
    }()

    static let order = "6b83b22e-7e22-420d-8c8c-921fd6bdcd37"

    static func payload(_ extra: String = "", type: String = "order", id: String? = nil) throws -> JSONObject {
        let idMember = type == "inbox" ? "" : #","id":"\#(id ?? order)""#
        return try #require(
            try JSONParser.parse(
                #"{"aps":{"alert":"Shipped https://example.com/track"},"type":"\#(type)"\#(idMember),"event_id":"e1","schema_version":1\#(extra)}"#
            ).objectValue)
    }

    @Test("thread-id and the collapse id are filled from the route's templates; a given thread-id is kept")
    func templates() throws {
        let prepared = try Self.contract.prepareForSealing(try Self.payload())
        #expect(prepared.payload["aps"]?.objectValue?["thread-id"] == .string("order:\(Self.order)"))
        #expect(prepared.collapseID == "order:\(Self.order)")
        var explicit = try Self.payload()
        explicit["aps"] = .object(JSONObject([("alert", .string("x")), ("thread-id", .string("mine"))]))
        #expect(
            try Self.contract.prepareForSealing(explicit).payload["aps"]?.objectValue?["thread-id"] == .string("mine"))
        #expect(try Self.contract.prepareForSealing(try Self.payload(type: "inbox")).collapseID == nil)
    }

    @Test("--event-id auto adds a random UUID only where the payload has none")
    func eventIDs() throws {
        var bare = try Self.payload()
        bare["event_id"] = nil
        #expect(throws: PushSealError.self) { try Self.contract.prepareForSealing(bare) }
        let first = try Self.contract.prepareForSealing(bare, addingEventID: true).route.eventID
        let second = try Self.contract.prepareForSealing(bare, addingEventID: true).route.eventID
        #expect(first != second)
        #expect(first.count == 36 && first == first.lowercased())
        #expect(try Self.contract.prepareForSealing(try Self.payload(), addingEventID: true).route.eventID == "e1")
        var null = try Self.payload()
        null["event_id"] = .null
        #expect(throws: PushSealError.self, "null is not an event_id") { try Self.contract.prepareForSealing(null) }
        #expect(
            try Self.contract.prepareForSealing(null, addingEventID: true).route.eventID.count == 36, "auto fills null")
        var number = try Self.payload()
        number["event_id"] = .number(JSONNumber(7))
        #expect(throws: PushSealError.self, "auto keeps any other value") {
            try Self.contract.prepareForSealing(number, addingEventID: true)
        }
    }

    @Test(
        "a declaration exempts only a top-level member, and everything inside it; names are checked at every depth",
        arguments: [
            (#","data":{"help_url":"x"}"#, "$.data.help_url"), (#","data":[{"note":"Re: x"}]"#, "$.data[0].note"),
            (#","data":{"https://evil.example":1}"#, "$.data['https://evil.example']"),
            (#","javascript:alert(1)":1"#, "$['javascript:alert(1)']"), (#","a b":"tel:1""#, "$['a b']"),
        ])
    func exemptionDepth(_ extra: String, _ path: String) throws {
        do {
            _ = try Self.contract.prepareForSealing(try Self.payload(extra))
            Issue.record("accepted \(extra)")
        } catch let error as PushSealError {
            #expect(error.detail.hasPrefix(path + " ") && error.detail.contains("link-not-allowed"), "\(error.detail)")
        }
    }

    @Test("inside a declared member, links and link-like names pass")
    func exemptSubtree() throws {
        let extra = #","help_url":{"inner_url":"https://h.example","x":["tel:1"]},"note":{"see":"Re: 10:30"}"#
        #expect(throws: Never.self) { try Self.contract.prepareForSealing(try Self.payload(extra)) }
    }

    @Test(
        "members that look like links are refused unless the contract allows them by name",
        arguments: [
            #","url":"x""#, #","deeplink":"orders/1""#, #","media-url":"https://cdn.example.com/a.jpg""#,
            #","extra":{"target":"myapp://pay"}"#, #","steps":["ok","javascript:alert(1)"]"#,
            #","call":"tel:+15550100""#,
            #","data":{"href":"/"}"#, #","pdf_url":"https://x""#,
            // The names are matched in any case.
            #","deepLink":"x""#, #","Media-URL":"x""#, #","receipt_HREF":"x""#,
            // A parse, not a deny-list: what a browser's URL parser reads as a link (JSON escapes).
            #","t":" https://evil""#, #","t":"\thttps://evil""#, #","t":"\njavascript:alert(1)""#,
            #","t":"java\tscript:alert(1)""#, #","t":"https:evil.example""#, #","t":"https:\\evil.example""#,
            #","t":"//evil.example/p""#, #","t":"\\\\evil.example/p""#, #","t":"facetime-audio:+1555""#,
            #","t":"telprompt:+1555""#, #","t":"App-prefs:root""#, #","t":"file:/etc/passwd""#,
            #","t":"intent:#Intent;end""#, #","t":"\u0000\u001fhttps://evil\u0020""#,
            #","t":"a\#(String(repeating: "b", count: 80)):x""#,
            // Plain text with a colon, not declared as text.
            #","greeting":"Re: lunch at 10:30""#, #","memo":"order:1042""#,
        ])
    func links(_ extra: String) throws {
        do {
            _ = try Self.contract.prepareForSealing(try Self.payload(extra))
            Issue.record("accepted \(extra)")
        } catch let error as PushSealError {
            #expect(error.detail.contains("link-not-allowed"), "\(error.detail)")
            #expect(error.detail.hasPrefix("$.") || error.detail.hasPrefix("$["), "names the path: \(error.detail)")
        }
    }

    @Test("allowed links pass: globally, per route; text that is not a link passes")
    func allowedLinks() throws {
        #expect(throws: Never.self) {
            try Self.contract.prepareForSealing(try Self.payload(#","help_url":"https://h""#))
        }
        #expect(throws: Never.self) {
            try Self.contract.prepareForSealing(try Self.payload(#","pdf_url":"https://x""#, type: "invoice", id: "12"))
        }
        #expect(throws: Never.self) {
            try Self.contract.prepareForSealing(try Self.payload(#","note":"order:1042, see you at 10:30""#))
        }
        #expect(throws: Never.self) {
            try Self.contract.prepareForSealing(try Self.payload(#","memo":"Re: 12""#, type: "invoice", id: "12"))
        }
        // `\\x` and `/\\x` would be links: a backslash is read as a slash.
        #expect(throws: Never.self, "only ASCII letters fold: KELVIN SIGN is not K") {
            try Self.contract.prepareForSealing(try Self.payload(#","lin\u212a":"plain""#))
        }
        for text in ["see you at 10:30", "1:0", "-x:y", "ok", "a b:c", "é:x", "/path", "\t/x"] {
            #expect(!PayloadContract.isLink(text), "\(text)")
        }
    }

    @Test("the error names the path and says how to declare the member")
    func linkAdvice() throws {
        do {
            _ = try Self.contract.prepareForSealing(try Self.payload(#","greeting":"Re: lunch""#))
            Issue.record("accepted")
        } catch let error as PushSealError {
            #expect(error.detail.hasPrefix("$.greeting is a link"), "\(error.detail)")
            #expect(error.detail.contains("\"links\"") && error.detail.contains("\"text\""), "\(error.detail)")
        }
    }

    static let media =
        #","media":{"url":"https://cdn.example.com/o/1.psm","type":"image/jpeg","length":100,"#
        + #""size":\#(MediaObject.objectSize(length: 100)),"sha256":"47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU","#
        + #""key":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}"#

    @Test("media is typed, not searched for links: a descriptor passes, anything else is refused at $.media")
    func mediaUnderContract() throws {
        #expect(throws: Never.self) { try Self.contract.prepareForSealing(try Self.payload(Self.media)) }
        for bad in [#","media":"https://x""#, #","media":{"url":"https://x"}"#] {
            do {
                _ = try Self.contract.prepareForSealing(try Self.payload(bad))
                Issue.record("accepted \(bad)")
            } catch let error as PushSealError {
                #expect(error.detail.hasPrefix("$.media"), "\(error.detail)")
            }
        }
    }
}
