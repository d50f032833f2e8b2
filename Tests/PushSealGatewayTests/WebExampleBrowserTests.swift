import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The web example (examples/web, docs/web.md) in a real browser: headless Chromium from Debian's
/// packages, driven through the DevTools protocol by `interop/python/web_example_browser.py`,
/// opens the page from the example's backend, which reaches this gateway. The page fetches the
/// applicationServerKey, the service worker registers, the page registers a subscription, and a
/// push that the gateway sealed with RFC 8291 (opened by the mock push service with the
/// subscription's keys, as the browser's push client would) is delivered to the service worker,
/// whose notification is read back. The gateway's app has receipts behind an HTTPS front, so the
/// service worker posts its receipt there, across origins, as a browser on the web does.
@Suite("the web example in headless Chromium", .serialized)
struct WebExampleBrowserTests {
    static let chromium = "/usr/bin/chromium"

    @Test(
        "the page subscribes through its backend, the service worker shows the gateway's push (title, body, badge, click target) and posts its receipt through the HTTPS front"
    )
    func pageAndServiceWorker() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium) else {
            Issue.record("chromium is not installed (make test installs it)")
            return
        }
        let front = try GatewayFetchTests.Front()
        let world = try GatewayWorld(webPush: true, appSettings: #""receipts": {"url": "\#(front.server.url)"}"#)
        try front.attach(world)
        let token = try GatewayWorld.token(in: world.store, scopes: [.devices, .pushes, .read])
        let endpoint = world.pushServices[0].endpoint("ok", "browser-1")
        let subscription = try world.receivers[0].subscription(endpoint: endpoint)
        let subscriptionFile = try world.directory.write(
            "subscription.json", JSONWriter.string(.object(subscription.json)))
        let rotatedEndpoint = world.pushServices[0].endpoint("ok", "browser-1-rotated")
        let rotatedFile = try world.directory.write(
            "rotated.json",
            JSONWriter.string(.object(try world.receivers[0].subscription(endpoint: rotatedEndpoint).json)))
        let run = try CLIRunner.run(
            executable: try PythonPeer.interpreter.get(),
            [
                PythonPeer.directory.appendingPathComponent("web_example_browser.py").path, "--subscription",
                subscriptionFile, "--push-log", world.pushServices[0].logFile, "--user", "u1",
                "--rotated-subscription", rotatedFile, "--trust-certificate", front.server.certificate,
            ], input: Data(), in: world.directory.path,
            environment: ["GATEWAY": "http://127.0.0.1:\(world.gateway.port)", "TOKEN": token], timeout: 400)
        let seen = try #require(
            try? JSONParser.parse(Array(run.output.utf8)).objectValue,
            "the driver printed no JSON (status \(run.status)): \(run.output)\(run.errors.suffix(3_000))")
        #expect(seen["error"] == nil, "\(run.output)")

        #expect(seen["status"] == .string("Notifications are off."), "the page started")
        #expect(seen["worker"] == .string("activated") && seen["permission"] == .string("granted"))
        let vapid = try world.request("GET", "/v1/webpush/vapid", token: world.adminToken)
        #expect(seen["application_server_key"] == vapid.json?["application_server_key"], "from the gateway")

        let device = try #require(seen["device_id"]?.stringValue)
        #expect(
            device.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil,
            "a random (version 4) device id kept by the browser: \(device)")
        let registered = seen["registered"]?.objectValue
        #expect(registered?["user"] == .string("u1"), "the backend chose the user, not the page")
        #expect(registered?["subscription"]?.objectValue?["endpoint"] == .string(endpoint))
        #expect(seen["push"]?.objectValue?["deliveries"] == .number(JSONNumber(1)))
        #expect(seen["content"]?.objectValue?["web_push"] == .number(JSONNumber(8030)), "declarative content")

        let shown = try #require(seen["notifications"]?.arrayValue?.first?.objectValue, "\(run.output)")
        #expect(shown["title"] == .string("Order #1042"))
        #expect(shown["body"] == .string("Arrives Thursday\nShipped today"), "the subtitle over the body")
        #expect(shown["tag"] == .string("order-1042") && shown["lang"] == .string("en"))
        #expect(shown["icon"] == .string("https://shop.example.com/icon-192.png"))
        #expect(shown["silent"] == .bool(false), "the push had a sound")
        #expect(shown["app_badge"] == .number(JSONNumber(3)))
        #expect(shown["navigate"] == .string("https://shop.example.com/orders/1042"), "the click target")
        #expect(shown["data"]?.objectValue?["order"] == .number(JSONNumber(1042)))
        #expect(!JSONWriter.string(.object(shown)).contains("pushseal_receipt"), "the page never sees the ticket")

        // The worker's receipt reached the gateway through its front: the delivery was displayed.
        #expect(seen["content"]?.objectValue?["pushseal_receipt"] != nil, "the content carried its display ticket")
        let display = try #require(seen["display"]?.objectValue, "no receipt came: \(run.output)")
        #expect(display["outcome"] == .string("displayed") && display["reason"] == nil, "\(display)")
        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        #expect(
            metrics.contains(#"pushseal_gateway_receipts_total{app="default",kind="webpush",outcome="displayed"} 1"#))

        // A later visit: a subscription of the current key is kept; one of a key the gateway no
        // longer signs with is replaced, subscribed with the current key, registered in its place.
        let rotation = seen["rotation"]?.objectValue
        let kept = rotation?["current"]?.objectValue
        #expect(kept?["unsubscribed"] == nil && kept?["subscribed_with"] == nil, "\(kept.map { "\($0)" } ?? "none")")
        #expect(kept?["status"] == .string("Notifications are on."))
        let replaced = rotation?["stale"]?.objectValue
        #expect(replaced?["unsubscribed"] == .bool(true), "\(replaced.map { "\($0)" } ?? "none")")
        #expect(replaced?["subscribed_with"] == vapid.json?["application_server_key"], "the gateway's current key")
        #expect(replaced?["status"] == .string("Notifications are on."))
        #expect(
            replaced?["registered"]?.objectValue?["subscription"]?.objectValue?["endpoint"]
                == .string(rotatedEndpoint), "registered under the same device id")

        #expect(seen["after_unsubscribe"] == .number(JSONNumber(404)), "unsubscribing removed the device")
    }

    static let node = URL(fileURLWithPath: "/usr/bin/node")

    /// The path of the example's service worker, for a script run under node; nil, with the
    /// issue recorded, when node is missing.
    static func workerSource() -> String? {
        guard FileManager.default.isExecutableFile(atPath: node.path) else {
            Issue.record("node is not installed (make test installs it)")
            return nil
        }
        return TestVectors.packageRoot.appendingPathComponent("examples/web/sw.js").path
    }

    @Test(
        "the service worker posts the receipt after showNotification, inside waitUntil, in both content shapes; the notification's data never holds the capability"
    )
    func receiptAfterShowing() throws {
        guard let worker = Self.workerSource() else { return }
        let script = """
            const listeners = {};
            const order = [];
            globalThis.self = {addEventListener: (name, f) => { listeners[name] = f; }, location: {hostname: "shop.example.com", origin: "https://shop.example.com"}, navigator: {},
              registration: {showNotification: (title, options) => new Promise(resolve => setTimeout(() => { order.push({shown: title, data: options.data}); resolve(); }, 10))}};
            globalThis.importScripts = () => {};
            globalThis.fetch = (url, init) => { order.push({url, method: init.method, authorization: init.headers.Authorization, type: init.headers["Content-Type"], body: init.body}); return Promise.resolve({status: 204}); };
            eval(require("fs").readFileSync(\(JSONWriter.string(.string(worker))), "utf8"));
            const receipt = {url: "https://push.example.com/v1/receipts/AAAAAAAAAAAAAAAAAAAAAA", capability: "BBBBBBBBBBBBBBBBBBBBBB"};
            const messages = [
              {web_push: 8030, notification: {title: "Declarative", navigate: "https://shop.example.com/"}, pushseal_receipt: receipt},
              {title: "Old shape", body: "b", data: {url: "/x"}, pushseal_receipt: receipt},
              {web_push: 8030, notification: {title: "No receipt", navigate: "/"}},
            ];
            (async () => {
              for (const message of messages) {
                let waited;
                listeners.push({data: {json: () => message}, waitUntil: p => { waited = p; }});
                await waited;
              }
              console.log(JSON.stringify(order));
            })();
            """
        let run = try CLIRunner.run(executable: Self.node, ["-e", script], input: Data(), in: nil)
        let parsed = try JSONParser.parse(Array(run.output.utf8)).arrayValue?.compactMap(\.objectValue)
        let steps = try #require(parsed, "\(run.output)\(run.errors)")
        #expect(steps.count == 5, "shown, posted; shown, posted; shown: \(steps)")
        for index in [1, 3] where index < steps.count {
            #expect(steps[index - 1]["shown"] != nil, "shown first, then the receipt: \(steps)")
            #expect(steps[index]["url"] == .string("https://push.example.com/v1/receipts/AAAAAAAAAAAAAAAAAAAAAA"))
            #expect(steps[index]["method"] == .string("POST"))
            #expect(steps[index]["authorization"] == .string("Bearer BBBBBBBBBBBBBBBBBBBBBB"))
            #expect(steps[index]["type"] == .string("application/json"))
            #expect(steps[index]["body"] == .string(#"{"outcome":"displayed"}"#))
        }
        #expect(steps.last?["shown"] == .string("No receipt"), "a message without a receipt posts nothing")
        let shownData = steps.compactMap { $0["data"] }.map { JSONWriter.string($0) }.joined()
        #expect(!shownData.contains("BBBBBBBBBBBBBBBBBBBBBB"), "the page's data never holds the capability")
    }

    @Test("the service worker reads 1.3's content too ({title, body, tag, data}), its click target from data.url")
    func contentOf13() throws {
        guard let worker = Self.workerSource() else { return }
        // The worker's own source, with the service-worker globals it touches at load stubbed.
        let script = """
            const listeners = {};
            globalThis.self = {addEventListener: (name, f) => { listeners[name] = f; }, location: {hostname: "shop.example.com", origin: "https://shop.example.com"}};
            globalThis.importScripts = () => {};
            eval(require("fs").readFileSync(\(JSONWriter.string(.string(worker))), "utf8") + "; globalThis.notificationOf = notificationOf;");
            const old = notificationOf({title: "Table 12", body: "Your table is ready", tag: "table-12", data: {url: "https://shop.example.com/tables/12"}});
            const declarative = notificationOf({web_push: 8030, notification: {title: "T", navigate: "https://x.example/"}});
            console.log(JSON.stringify({old, declarative, listeners: Object.keys(listeners).sort()}));
            """
        let run = try CLIRunner.run(executable: Self.node, ["-e", script], input: Data(), in: nil)
        let seen = try #require(try JSONParser.parse(Array(run.output.utf8)).objectValue, "\(run.output)\(run.errors)")
        let old = seen["old"]?.objectValue
        #expect(old?["title"] == .string("Table 12") && old?["body"] == .string("Your table is ready"))
        #expect(old?["tag"] == .string("table-12") && old?["navigate"] == .string("https://shop.example.com/tables/12"))
        #expect(seen["declarative"]?.objectValue?["navigate"] == .string("https://x.example/"))
        #expect(
            seen["listeners"]
                == .array([.string("notificationclick"), .string("push"), .string("pushsubscriptionchange")]))
    }
}
