import PushSealCore
import Testing

@testable import PushSealGateway

/// A subscription's content (gateway-v1.md, "Web Push", its content): Declarative Web Push's JSON
/// from the APNs payload and the push's `web` member, or 1.3's shape when configured so.
@Suite("a subscription's content")
struct SubscriptionContentTests {
    static let declarative = SubscriptionContent(form: .declarative, navigate: "https://shop.example.com/notifications")

    static func object(_ json: String) throws -> JSONObject {
        try #require(try JSONParser.parse(Array(json.utf8)).objectValue)
    }

    static func content(
        _ payload: String, collapseID: String? = nil, web: WebPushOptions = WebPushOptions(),
        with content: SubscriptionContent = declarative
    ) throws -> String {
        JSONWriter.string(.object(content.json(payload: try object(payload), collapseID: collapseID, web: web)))
    }

    @Test(
        "every member the push gives: title, subtitle over the body, navigate, tag, lang, dir, icon, app_badge, silent, data"
    )
    func everyMember() throws {
        var web = WebPushOptions()
        web.navigate = "https://shop.example.com/orders/1042"
        web.icon = "https://shop.example.com/icon-192.png"
        web.lang = "fr"
        web.dir = "ltr"
        let content = try Self.content(
            #"{"aps":{"alert":{"title":"Commande 1042","subtitle":"Arrive jeudi","body":"Expédiée"},"badge":3,"sound":"default","thread-id":"orders"},"order":1042,"event_id":"e1"}"#,
            collapseID: "order-1042", web: web)
        #expect(
            content
                == #"{"web_push":8030,"notification":{"title":"Commande 1042","body":"Arrive jeudi\nExpédiée","navigate":"https://shop.example.com/orders/1042","tag":"order-1042","lang":"fr","dir":"ltr","icon":"https://shop.example.com/icon-192.png","app_badge":3,"silent":false,"data":{"order":1042,"event_id":"e1"}}}"#
        )
    }

    @Test(
        "without a title, the navigate URL's host (the format requires one); without a sound, silent; navigate from the configuration"
    )
    func defaults() throws {
        #expect(
            try Self.content(#"{"aps":{"alert":"Your table is ready"}}"#)
                == #"{"web_push":8030,"notification":{"title":"shop.example.com","body":"Your table is ready","navigate":"https://shop.example.com/notifications","silent":true,"data":{}}}"#
        )
        let port = SubscriptionContent(form: .declarative, navigate: "https://shop.example.com:8443/n")
        #expect(
            try Self.content(#"{"aps":{"alert":{"body":"b"}}}"#, with: port).contains(
                #""title":"shop.example.com:8443""#))
        #expect(
            try Self.content(#"{"aps":{"content-available":1},"sync":true}"#)
                == #"{"web_push":8030,"notification":{"title":"shop.example.com","navigate":"https://shop.example.com/notifications","silent":true,"data":{"sync":true}}}"#,
            "a push without an alert still has what the format requires")
    }

    @Test("a badge of 0 clears the app's badge: app_badge 0, never left out; a negative one is left out")
    func badgeZero() throws {
        #expect(
            try Self.content(#"{"aps":{"alert":"Read on another device","badge":0,"sound":"default"}}"#)
                == #"{"web_push":8030,"notification":{"title":"shop.example.com","body":"Read on another device","navigate":"https://shop.example.com/notifications","app_badge":0,"silent":false,"data":{}}}"#
        )
        #expect(try !Self.content(#"{"aps":{"alert":"x","badge":-1}}"#).contains("app_badge"))
    }

    @Test("service-worker-1.3 keeps 1.3's shape: title, body, tag, data, and nothing of web")
    func formOf13() throws {
        var web = WebPushOptions()
        web.navigate = "https://shop.example.com/orders/1042"
        let content = try Self.content(
            #"{"aps":{"alert":{"title":"Order 1042","subtitle":"s","body":"Shipped"},"badge":2},"order":1042}"#,
            collapseID: "order-1042", web: web, with: SubscriptionContent(form: .serviceWorker13, navigate: nil))
        #expect(content == #"{"title":"Order 1042","body":"Shipped","tag":"order-1042","data":{"order":1042}}"#)
    }

    @Test("the push's web member: https URLs, a BCP 47 tag, auto, ltr or rtl; anything else is 400 naming it")
    func webOptions() throws {
        let path = JSONPath.root.member("web")
        let good = try WebPushOptions(
            .object(
                try Self.object(
                    #"{"navigate":"https://a.example/x?y=1","icon":"https://cdn.example/i.png","lang":"pt-BR","dir":"rtl"}"#
                )), at: path)
        #expect(good.navigate == "https://a.example/x?y=1" && good.lang == "pt-BR" && good.dir == "rtl")
        let refused: [(String, String)] = [
            (#"{"navigate":"http://a.example/"}"#, "$.web.navigate"),
            (#"{"navigate":"/orders/1042"}"#, "$.web.navigate"),
            (#"{"navigate":"javascript:alert(1)"}"#, "$.web.navigate"),
            (#"{"icon":"https://"}"#, "$.web.icon"),
            (#"{"lang":"english language"}"#, "$.web.lang"),
            (#"{"lang":"e"}"#, "$.web.lang"),
            (#"{"dir":"up"}"#, "$.web.dir"),
            (#"{"url":"https://a.example/"}"#, "$.web.url"),
        ]
        for (json, at) in refused {
            do {
                _ = try WebPushOptions(.object(try Self.object(json)), at: path)
                Issue.record("\(json) was taken")
            } catch let error as APIError {
                #expect(error.status == 400 && error.path == at, "\(json): \(error.message)")
            }
        }
        let long = "https://a.example/" + String(repeating: "a", count: WebPushOptions.maximumURLByteCount)
        #expect(!WebPushOptions.isWebURL(long))
    }
}
