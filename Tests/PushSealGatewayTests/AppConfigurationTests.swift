import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The configuration's apps (gateway-v1.md, "Configuration", "Apps"): the one-app form read as the
/// app `default`, `apps`, and each app's APNs keys.
@Suite("app configuration")
struct AppConfigurationTests {
    static let gateway = #""listen": "127.0.0.1:0", "database": "sqlite:gateway.db""#
    static let shopApp = """
        "sender_key_files": ["shop.jwk"],
        "apns": {"auth_key_file": "AuthKey_SHOP000001.p8", "key_id": "SHOP000001", "team_id": "TEAM000001",
                 "topics": ["com.example.shop"]}
        """

    static func parse(_ json: String) throws(GatewayError) -> GatewayConfiguration {
        try GatewayConfiguration(json: Array(json.utf8), path: "/etc/pushseal/gateway.json")
    }

    /// The message of the error `json` is refused with; nil when it is accepted.
    static func refusal(_ json: String) -> String? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("without apps, the top level's app members are the app default, as 1.3 read them")
    func oneApp() throws {
        let configuration = try Self.parse("{\(Self.gateway), \(Self.shopApp), \"max_deliveries_per_push\": 7}")
        let app = try #require(configuration.apps.first)
        #expect(configuration.apps.count == 1 && app.id == .default)
        #expect(app.senderKeyFiles == ["/etc/pushseal/shop.jwk"] && app.maximumDeliveriesPerPush == 7)
        #expect(app.apns.keys.map(\.keyID) == ["SHOP000001"] && app.apns.keys[0].topics == nil)
        #expect(app.apns.key(for: "com.example.shop")?.authKeyFile == "/etc/pushseal/AuthKey_SHOP000001.p8")
    }

    @Test("apps: each member an app named by its name, in order, with its own members and defaults")
    func apps() throws {
        let configuration = try Self.parse(
            """
            {\(Self.gateway), "apps": {
              "shop": {\(Self.shopApp), "limits": {"requests_per_second": 5}},
              "news-2": {"sender_key_files": ["news.jwk"], "test_push": {"title": "News test"},
                         "apns": {"auth_key_file": "AuthKey_NEWS000001.p8", "key_id": "NEWS000001",
                                  "team_id": "TEAM000001", "topics": ["com.example.news"]}}}}
            """)
        #expect(configuration.apps.map(\.id.name) == ["shop", "news-2"])
        let newsID = try #require(AppID("news-2"))
        let news = try #require(configuration.app(newsID))
        #expect(news.apns.topics == ["com.example.news"] && news.testNotification.title == "News test")
        #expect(news.testNotification.body == AppConfiguration.defaultTestNotification.body)
        #expect(news.maximumDeliveriesPerPush == 5_000 && news.webPush == nil && news.relay == nil)
        #expect(configuration.app(.default) == nil, "no app is default unless named so")
        #expect(configuration.webPushWorkers == nil)
    }

    @Test("retention_hours: an app's own, else the gateway's, which also holds alone for the one-app form")
    func retention() throws {
        let configuration = try Self.parse(
            """
            {\(Self.gateway), "retention_hours": 24, "apps": {
              "shop": {\(Self.shopApp), "retention_hours": 720},
              "news": {\(Self.shopApp)}}}
            """)
        #expect(configuration.retentionHours == 24)
        #expect(configuration.apps.map(\.retentionHours) == [720, 24])
        let one = try Self.parse("{\(Self.gateway), \(Self.shopApp), \"retention_hours\": 6}")
        #expect(one.retentionHours == 6 && one.apps.map(\.retentionHours) == [6])
        #expect(try Self.parse("{\(Self.gateway), \(Self.shopApp)}").apps.map(\.retentionHours) == [72])
        #expect(
            Self.refusal("{\(Self.gateway), \"apps\": {\"shop\": {\(Self.shopApp), \"retention_hours\": 0}}}")?
                .contains("$.apps.shop.retention_hours must be an integer from 1 to 8760") == true)
    }

    @Test("keys: a topic-specific key signs for its topics, a team key for the rest, whatever the order")
    func keys() throws {
        let configuration = try Self.parse(
            """
            {\(Self.gateway), "sender_key_files": ["shop.jwk"],
             "apns": {"topics": ["com.example.shop", "com.example.shop.watch", "com.example.shop.clip"],
                      "keys": [{"auth_key_file": "team.p8", "key_id": "TEAMKEY001", "team_id": "TEAM000001"},
                               {"auth_key_file": "watch.p8", "key_id": "WATCHKEY01", "team_id": "TEAM000001",
                                "topics": ["com.example.shop.watch"]}]}}
            """)
        let apns = try #require(configuration.apps.first).apns
        #expect(apns.key(for: "com.example.shop.watch")?.keyID == "WATCHKEY01")
        #expect(apns.key(for: "com.example.shop")?.keyID == "TEAMKEY001")
        #expect(apns.key(for: "com.example.shop.clip")?.keyID == "TEAMKEY001")
    }

    @Test("fetch: read with its public URL and default, absent by default")
    func fetch() throws {
        let configured = try Self.parse(
            "{\(Self.gateway), \(Self.shopApp), \"fetch\": {\"public_url\": \"https://push.example.com\", \"by_default\": true}}"
        )
        #expect(configured.apps.first?.fetch?.publicURL == "https://push.example.com")
        #expect(configured.apps.first?.fetch?.byDefault == true)
        #expect(try Self.parse("{\(Self.gateway), \(Self.shopApp)}").apps.first?.fetch == nil)
    }

    @Test("mistakes in apps and keys are refused at start, naming the member")
    func refusals() {
        let key = #""auth_key_file": "a.p8", "key_id": "KEYA000001", "team_id": "TEAM000001""#
        let cases: [(json: String, words: String)] = [
            (
                "{\(Self.gateway), \"apps\": {\"shop\": {\(Self.shopApp)}}, \"webhooks\": []}",
                "$.webhooks belongs to an app"
            ),
            ("{\(Self.gateway), \"apps\": {}}", "$.apps must be an object of 1 to 100 apps"),
            (
                "{\(Self.gateway), \"apps\": {\"shop\": {\(Self.shopApp), \"fetch\": {\"public_url\": \"http://x.example\"}}}}",
                "$.apps.shop.fetch.public_url must be an https URL without a path"
            ),
            (
                "{\(Self.gateway), \"apps\": {\"shop\": {\(Self.shopApp), \"fetch\": {\"public_url\": \"https://x.example/v1\"}}}}",
                "$.apps.shop.fetch.public_url must be an https URL without a path"
            ),
            (
                "{\(Self.gateway), \"apps\": {\"shop\": {\(Self.shopApp), \"fetch\": {\"public_url\": \"https://x.example\", \"by_default\": 1}}}}",
                "$.apps.shop.fetch.by_default must be true or false"
            ),
            (
                "{\(Self.gateway), \"apps\": {\"shop\": {\(Self.shopApp), \"fetch\": {\"public_url\": \"https://x.example\", \"url\": 1}}}}",
                "$.apps.shop.fetch.url is not"
            ),
            ("{\(Self.gateway), \"apps\": {\"Shop\": {\(Self.shopApp)}}}", "$.apps.Shop is not an app name"),
            ("{\(Self.gateway), \"apps\": {\"-shop\": {\(Self.shopApp)}}}", "is not an app name"),
            ("{\(Self.gateway), \"apps\": {\"shop\": {\"apns\": {}}}}", "$.apps.shop.sender_key_files must be"),
            (
                #"{\#(Self.gateway), "sender_key_files": ["k", ""], "apns": {"topics": ["a.b"], \#(key)}}"#,
                "$.sender_key_files must be a non-empty array of file names"
            ),
            (
                "{\(Self.gateway), \"apps\": {\"shop\": {\(Self.shopApp), \"webhoks\": []}}}",
                "$.apps.shop.webhoks is not a configuration member"
            ),
            (
                "{\(Self.gateway), \"apps\": {\"shop\": {\(Self.shopApp), \"listen\": \"x\"}}}",
                "$.apps.shop.listen is not"
            ),
            (
                #"{\#(Self.gateway), "sender_key_files": ["k"], "apns": {"topics": ["a.b"], "keys": [{\#(key), "topics": ["c.d"]}]}}"#,
                "$.apns.keys[0].topics[0] names c.d, which is not among the app's apns topics"
            ),
            (
                #"{\#(Self.gateway), "sender_key_files": ["k"], "apns": {"topics": ["a.b", "c.d"], "keys": [{\#(key), "topics": ["c.d"]}]}}"#,
                "has no key that signs for the topic a.b"
            ),
            (
                #"{\#(Self.gateway), "sender_key_files": ["k"], "apns": {"topics": ["a.b"], "keys": [{\#(key)}, {\#(key)}]}}"#,
                "$.apns.keys[1].key_id names a key listed before it"
            ),
            (
                #"{\#(Self.gateway), "sender_key_files": ["k"], "apns": {\#(key), "topics": ["a.b"], "keys": [{\#(key)}]}}"#,
                "$.apns.auth_key_file is a member of each of keys"
            ),
            (
                #"{\#(Self.gateway), "sender_key_files": ["k"], "apns": {"topics": ["a.b"], "keys": [{\#(key), "extra": 1}]}}"#,
                "$.apns.keys[0].extra is not a configuration member"
            ),
            (
                """
                {\(Self.gateway), "apps": {
                  "one": {"sender_key_files": ["k"], "apns": {\(key), "topics": ["a.b"]}},
                  "two": {"sender_key_files": ["k"], "apns": {"auth_key_file": "other.p8", "key_id": "KEYA000001",
                          "team_id": "TEAM000001", "topics": ["c.d"]}}}}
                """,
                "names key KEYA000001 of team TEAM000001 with another file than an app before it"
            ),
            (
                """
                {\(Self.gateway), "apps": {
                  "one": {\(Self.shopApp), "webhooks": [{"name": "hooks", "url": "https://h.example/a", "secret_files": ["s"]}]},
                  "two": {\(Self.shopApp), "webhooks": [{"name": "hooks", "url": "https://h.example/b", "secret_files": ["s"]}]}}}
                """,
                "$.apps.two.webhooks[0].name is another app's endpoint's name"
            ),
        ]
        for (json, words) in cases {
            let message = Self.refusal(json)
            #expect(message?.contains(words) == true, "\(words): \(message ?? "accepted")")
        }
    }

    @Test("one key named by two apps with the same file is accepted: a team key serves a team's apps")
    func sharedKey() throws {
        let configuration = try Self.parse(
            """
            {\(Self.gateway), "apps": {
              "shop": {\(Self.shopApp)},
              "shop-staging": {"sender_key_files": ["staging.jwk"],
                               "apns": {"auth_key_file": "AuthKey_SHOP000001.p8", "key_id": "SHOP000001",
                                        "team_id": "TEAM000001", "topics": ["com.example.shop.staging"]}}}}
            """)
        #expect(configuration.apps.count == 2)
    }

    @Test("gateway-v1.md's example of apps is a configuration the gateway reads as it says")
    func documentedExample() throws {
        let document = try String(
            contentsOf: TestVectors.packageRoot.appendingPathComponent("docs/gateway-v1.md"), encoding: .utf8)
        let section = try #require(document.range(of: "### Apps"))
        let rest = document[section.upperBound...]
        let start = try #require(rest.range(of: "```json\n"))
        let end = try #require(rest[start.upperBound...].range(of: "```"))
        let configuration = try Self.parse(String(rest[start.upperBound..<end.lowerBound]))
        #expect(configuration.apps.map(\.id.name) == ["shop", "news"])
        #expect(configuration.apps[1].apns.keys.first?.keyID == "XYZ987WVUT" && configuration.webPushWorkers == 2)
    }
}
