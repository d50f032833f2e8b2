import PushSealCore
import Testing

/// ``JSONPath``: RFC 9535 queries that name one place, whatever the member names hold.
@Suite("JSON paths in messages")
struct JSONPathTests {
    @Test(
        "shorthand for plain ASCII names, brackets and RFC 9535 escapes for every other",
        arguments: [
            (["aps", "alert"], "$.aps.alert"), (["_x9"], "$._x9"), (["aps", "thread-id"], "$.aps['thread-id']"),
            (["a b", "c"], "$['a b'].c"), ([""], "$['']"), (["é"], "$['é']"), (["9a"], "$['9a']"),
            (["it's"], #"$['it\'s']"#), (["a\\b"], #"$['a\\b']"#), (["x\"y"], #"$['x"y']"#),
            (["\n\t\u{1}\u{1F}"], #"$['\n\t\u0001\u001f']"#), (["a.b"], "$['a.b']"), (["."], "$['.']"),
        ])
    func members(_ names: [String], _ expected: String) {
        #expect(names.reduce(JSONPath.root) { $0.member($1) }.description == expected)
    }

    @Test("array elements by index from 0")
    func elements() {
        #expect(JSONPath.root.member("links").element(0).description == "$.links[0]")
        #expect(
            JSONPath.root.member("routes").member("chat").member("links").element(2).member("x").description
                == "$.routes.chat.links[2].x")
    }

    @Test("distinct places never share a path")
    func unambiguous() {
        let places: [[String]] = [
            ["a b", "c"], ["a", "b.c"], ["a", "b", "c"], ["a.b", "c"], [""], ["", ""], ["."],
        ]
        let paths = places.map { $0.reduce(JSONPath.root) { $0.member($1) }.description }
        #expect(Set(paths).count == places.count, "\(paths)")
    }
}
