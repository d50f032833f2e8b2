import PushSealCore
import PushSealDecryptor
import Testing

/// Every decision of the adapter to Apple's `UNMutableNotificationContent`, pinned on Linux
/// (docs/ios.md, "Apple's content, member by member").
@Suite("Apple's content, member by member")
struct NotificationPresentationTests {
    static func presentation(_ aps: String, extra: String = "") throws -> NotificationPresentation {
        let payload = try #require(try JSONParser.parse(Array(#"{"aps":\#(aps)\#(extra)}"#.utf8)).objectValue)
        return NotificationPresentation(NotificationContent(payload: payload))
    }

    @Test("a localization key wins over the literal text, with its arguments; no key, the literal text")
    func texts() throws {
        let localized = try Self.presentation(
            #"""
            {"alert":{"title":"T","title-loc-key":"ORDER_TITLE","title-loc-args":["1042"],
             "subtitle-loc-key":"SHOP","body":"B","loc-key":"SHIPPED","loc-args":["today","DHL"],
             "launch-image":"Launch"}}
            """#)
        #expect(localized.title == .localized(key: "ORDER_TITLE", arguments: ["1042"]))
        #expect(localized.subtitle == .localized(key: "SHOP", arguments: []))
        #expect(localized.body == .localized(key: "SHIPPED", arguments: ["today", "DHL"]))
        #expect(localized.launchImageName == "Launch")
        let literal = try Self.presentation(#"{"alert":{"title":"T","body":"B"}}"#)
        #expect(literal.title == .literal("T") && literal.subtitle == nil && literal.body == .literal("B"))
        #expect(try Self.presentation(#"{"alert":"just a body"}"#).body == .literal("just a body"))
    }

    @Test(
        "sounds: the default, a named one, and critical ones with their volume (clamped to 0...1, 1 when absent)",
        arguments: [
            (#""default""#, NotificationPresentation.Sound.standard),
            (#""chime.caf""#, .named("chime.caf")),
            (#"{"critical":1,"name":"alarm.caf","volume":0.75}"#, .namedCritical("alarm.caf", volume: 0.75)),
            (#"{"critical":1}"#, .standardCritical(volume: 1)),
            (#"{"critical":1,"name":"default","volume":2}"#, .standardCritical(volume: 1)),
            (#"{"critical":1,"name":"alarm.caf","volume":-1}"#, .namedCritical("alarm.caf", volume: 0)),
            (#"{"critical":0,"name":"chime.caf"}"#, .named("chime.caf")),
        ])
    func sounds(_ sound: String, _ expected: NotificationPresentation.Sound) throws {
        #expect(try Self.presentation(#"{"alert":"x","sound":\#(sound)}"#).sound == expected)
    }

    @Test("no sound, or one of another type, plays none")
    func noSound() throws {
        #expect(try Self.presentation(#"{"alert":"x"}"#).sound == nil)
        #expect(try Self.presentation(#"{"alert":"x","sound":5}"#).sound == nil)
    }

    @Test(
        "interruption levels as Apple names them; anything else is active",
        arguments: [
            ("passive", NotificationPresentation.InterruptionLevel.passive), ("active", .active),
            ("time-sensitive", .timeSensitive), ("critical", .critical), ("loud", .active),
        ])
    func levels(_ name: String, _ expected: NotificationPresentation.InterruptionLevel) throws {
        #expect(try Self.presentation(#"{"alert":"x","interruption-level":"\#(name)"}"#).interruptionLevel == expected)
    }

    @Test(
        "the other members: badge, thread, category, target content id, relevance (clamped), filter criteria, userInfo")
    func members() throws {
        let full = try Self.presentation(
            #"""
            {"alert":"x","badge":3,"thread-id":"orders","category":"ORDER","target-content-id":"order-1042",
             "relevance-score":1.5,"filter-criteria":"work"}
            """#, extra: #","order":1042"#)
        #expect(full.badge == 3 && full.threadIdentifier == "orders" && full.categoryIdentifier == "ORDER")
        #expect(full.targetContentIdentifier == "order-1042" && full.filterCriteria == "work")
        #expect(full.relevanceScore == 1)
        #expect(full.userInfo["order"] == .number(JSONNumber(1042)), "the decrypted payload, whole")
        let bare = try Self.presentation(#"{"alert":"x","relevance-score":-0.25}"#)
        #expect(bare.badge == nil && bare.threadIdentifier.isEmpty && bare.categoryIdentifier.isEmpty)
        #expect(bare.launchImageName.isEmpty && bare.targetContentIdentifier == nil && bare.filterCriteria == nil)
        #expect(bare.relevanceScore == 0 && bare.interruptionLevel == .active)
        #expect(try Self.presentation(#"{"alert":"x"}"#).relevanceScore == nil, "absent: Apple's default")
    }
}
