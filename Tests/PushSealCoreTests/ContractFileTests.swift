import PushSealCore
import Testing

/// contract-v1.md, "The file": what a contract file must be, each refusal naming the deepest
/// JSON path at fault, and templates that could ever fill to an invalid header refused at load.
@Suite("Payload contract files")
struct ContractFileTests {
    static func refusal(_ text: String) -> String? {
        do {
            _ = try PayloadContract(json: Array(text.utf8))
            return nil
        } catch {
            return "\(error)"
        }
    }

    static func routes(_ routes: String, extra: String = "") -> String {
        #"{"schema_versions":[1],"routes":\#(routes)\#(extra)}"#
    }

    @Test(
        "every refusal names the deepest path at fault",
        arguments: [
            ("[]", "$ must be a JSON object"),
            (routes(#"{"a b":{}}"#), "$.routes['a b'] "),
            (routes(#"{"a":{}}"#, extra: #","links":["ok",1]"#), "$.links[1] "),
            (routes(#"{"a":{}}"#, extra: #","links":"help_url""#), "$.links must be an array"),
            (routes(#"{"a":{"text":["memo",""]}}"#), "$.routes.a.text[1] "),
            (routes(#"{"a":{"thread-id":""}}"#), "$.routes.a['thread-id'] must be a non-empty string"),
            (routes(#"{"a":{"id":"email"}}"#), "$.routes.a.id "),
            (routes(#"{"a":{}}"#, extra: #","a.b":1"#), "$['a.b'] is not a member"),
            (#"{"schema_versions":[1,-1],"routes":{"a":{}}}"#, "$.schema_versions[1] "),
        ])
    func paths(_ text: String, _ expected: String) {
        let refusal = Self.refusal(text)
        #expect(refusal?.contains(expected) == true, "\(refusal ?? "accepted")")
    }

    @Test(
        "text that is not one JSON object is refused with the byte offset",
        arguments: [
            (#"{"schema_versions":[1],"schema_versions":[2],"routes":{"a":{}}}"#, "duplicate member name"),
            ("\u{FEFF}" + routes(#"{"a":{}}"#), "at byte 0"), (routes(#"{"a":{}}"#) + " {}", "after the JSON value"),
        ])
    func notJSON(_ text: String, _ expected: String) {
        let refusal = Self.refusal(text)
        #expect(
            refusal?.contains("not JSON") == true && refusal?.contains(expected) == true, "\(refusal ?? "accepted")")
    }

    @Test(
        "links and text entries: non-empty, distinct, and only custom members, at the top and per route",
        arguments: [
            ("links", #"[""]"#), ("links", #"["help_url","help_url"]"#), ("links", #"["aps"]"#),
            ("text", #"["event_id"]"#), ("links", #"["media"]"#), ("text", #"["type"]"#),
            ("links", #"["schema_version"]"#),
        ])
    func nameLists(_ member: String, _ list: String) {
        #expect(Self.refusal(Self.routes(#"{"a":{}}"#, extra: #","\#(member)":\#(list)"#)) != nil)
        #expect(Self.refusal(Self.routes(#"{"a":{"\#(member)":\#(list)}}"#)) != nil, "per route")
    }

    @Test(
        "a collapse-id template that can fill past 64 bytes, or holds a control character, is refused at load",
        arguments: [
            (#"{"a":{"collapse-id":"\#(String(repeating: "x", count: 65))"}}"#, "65 bytes"),
            (#"{"\#(String(repeating: "r", count: 60))":{"id":"token","collapse-id":"{type}:{id}"}}"#, "125 bytes"),
            (#"{"c":{"id":"token","collapse-id":"c:{id}"}}"#, "66 bytes"),
            (#"{"a":{"id":"uuid","collapse-id":"{id}{id}"}}"#, "72 bytes"),
            (#"{"a":{"collapse-id":"x\u0007y"}}"#, "control character"),
            (#"{"a":{"collapse-id":"x\u0085y"}}"#, "control character"),
            (#"{"a":{"collapse-id":""}}"#, "non-empty"), (#"{"a":{"collapse-id":"{user}"}}"#, "placeholder"),
        ])
    func impossibleTemplates(_ routes: String, _ expected: String) {
        let refusal = Self.refusal(Self.routes(routes))
        #expect(refusal?.contains(expected) == true, "\(refusal ?? "accepted")")
    }

    @Test(
        "templates whose longest fill fits are accepted",
        arguments: [
            #"{"a":{"collapse-id":"\#(String(repeating: "x", count: 64))"}}"#,
            #"{"order":{"id":"uuid","collapse-id":"order:{id}"}}"#, #"{"c":{"id":"token","collapse-id":"{id}"}}"#,
            #"{"n":{"id":"integer","collapse-id":"{type}-{id}-{type}"}}"#,
            #"{"c":{"id":"token","thread-id":"\#(String(repeating: "t", count: 200)):{id}"}}"#,
        ])
    func possibleTemplates(_ routes: String) {
        #expect(Self.refusal(Self.routes(routes)) == nil, "\(Self.refusal(Self.routes(routes)) ?? "")")
    }
}
