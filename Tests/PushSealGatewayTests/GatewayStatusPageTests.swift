import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The status page in a real browser, and the deployment files (gateway-v1.md, "Status page",
/// "Deployment").
@Suite("pushseal-gateway status page and deployment", .serialized)
struct GatewayStatusPageTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The status page as headless Chromium left it once its script had run: the DOM, read back
    /// by id; and a screenshot of it, `.build/status-page/<state>.png`, an artifact to look at.
    struct RenderedPage {
        let dom: String

        /// Renders `url`, saving the screenshot as `state`.
        init(_ url: String, state: String, chromium: String, profile: String) throws {
            let folder = TestVectors.packageRoot.appendingPathComponent(".build/status-page")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let screenshot = folder.appendingPathComponent("\(state).png").path
            try? FileManager.default.removeItem(atPath: screenshot)
            let run = try CLIRunner.run(
                executable: URL(fileURLWithPath: chromium),
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                    "--user-data-dir=\(profile)", "--virtual-time-budget=5000", "--window-size=1200,1100",
                    "--screenshot=\(screenshot)", "--dump-dom", url,
                ], input: Data(), in: nil)
            #expect(run.status == 0, "\(state): \(run.errors.suffix(2_000))")
            dom = run.output
            let png = (try? Data(contentsOf: URL(fileURLWithPath: screenshot))) ?? Data()
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000, "\(state): a screenshot")
        }

        /// Whether the script read `/status.json` and filled the page.
        var loaded: Bool { dom.contains(#"data-loaded="yes""#) }

        /// The text of the element `id`.
        func text(_ id: String) -> String? {
            guard let element = dom.range(of: #"id="\#(id)""#),
                let start = dom[element.upperBound...].firstIndex(of: ">")
            else { return nil }
            return String(dom[dom.index(after: start)...].prefix { $0 != "<" })
        }

        /// What follows `open` (an opening tag, exactly) up to `close`.
        func inside(_ open: String, upTo close: String) -> Substring? {
            guard let start = dom.range(of: open), let end = dom[start.upperBound...].range(of: close) else {
                return nil
            }
            return dom[start.upperBound..<end.lowerBound]
        }

        /// The notices above the figures: each one's level (its class, and so its colour) and words.
        var attention: [(level: String, message: String)] {
            guard let list = inside(#"<ul id="attention">"#, upTo: "</ul>") else { return [] }
            return list.matches(of: /<li class="([a-z]+)">([^<]*)<\/li>/).map {
                (String($0.output.1), String($0.output.2))
            }
        }

        /// The rows of the table body `id`: each one's class and its cells' text.
        func rows(_ id: String) -> [(kind: String, cells: [String])] {
            guard let body = inside(#"<tbody id="\#(id)">"#, upTo: "</tbody>") else { return [] }
            return body.matches(of: /<tr(?: class="([^"]*)")?>(.*?)<\/tr>/).map { row in
                (
                    String(row.output.1 ?? ""),
                    row.output.2.matches(of: /<td[^>]*>([^<]*)<\/td>/).map { String($0.output.1) }
                )
            }
        }
    }

    @Test(
        "headless Chromium reads the status page in each state: healthy, a provider token refused with deliveries retrying, a stale instance, a disabled webhook endpoint"
    )
    func statusPageStates() throws {
        guard let chromium = Self.chromium else {
            Issue.record("chromium is not installed: make test installs Debian's chromium")
            return
        }
        let secrets = TemporaryDirectory()
        let world = try GatewayWorld.withWebhookEndpoint(secrets: secrets)
        let port = try #require(world.gateway.operationsPort)
        let url = "http://127.0.0.1:\(port)/status"
        func render(_ state: String) throws -> RenderedPage {
            let page = try RenderedPage(
                url, state: state, chromium: chromium, profile: world.directory.file("chromium"))
            #expect(page.loaded, "\(state): the script read status.json")
            return page
        }
        func push(_ user: String) throws -> String {
            let answer = try world.request(
                "POST", "/v1/pushes", json: #"{"to":{"user":"\#(user)"},"payload":{"aps":{"alert":"hi"}}}"#,
                token: world.adminToken)
            return try #require(answer.json?["id"]?.stringValue)
        }

        // Healthy: one push sent, this instance alive, the endpoint enabled.
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        let sent = try push("u1")
        #expect(
            try world.eventually { try world.store.push(id: sent, in: .default)?.deliveries.first?.status == .sent })
        #expect(try world.eventually { try world.store.instances().contains { $0.id == world.gateway.instanceID } })
        let healthy = try render("healthy")
        #expect(healthy.attention.map(\.level) == ["ok"], "\(healthy.attention)")
        #expect(healthy.text("devices-active") == "1" && healthy.text("queue-depth") == "0")
        #expect(healthy.rows("outcomes").map(\.cells) == [["sent", "—", "1"]])
        #expect(healthy.rows("retrying").isEmpty)
        #expect(healthy.rows("instances").map(\.kind) == ["alive"])
        #expect(healthy.rows("instances").first?.cells.first == world.gateway.instanceID)
        #expect(healthy.rows("webhooks").map(\.cells) == [["backend", "enabled", "0"]])
        #expect(healthy.rows("apps").map(\.cells) == [["default", "served", "0", "0", "1", "0"]])

        // A provider token APNs refuses holds one delivery; another waits out a 503.
        try world.registerDevice("revoked", user: "u2", token: GatewayWorld.deviceToken("4031", 2))
        try world.registerDevice("busy", user: "u3", token: GatewayWorld.deviceToken("5003", 3))
        let held = try push("u2")
        let busy = try push("u3")
        #expect(
            try world.eventually(20) {
                try [held, busy].allSatisfy {
                    try world.store.push(id: $0, in: .default)?.deliveries.first?.reason != nil
                }
            })
        let refused = try render("provider-token-refused")
        #expect(refused.attention.first?.level == "critical", "\(refused.attention)")
        #expect(
            refused.attention.first?.message.hasPrefix("APNs refuses the provider token: 1 delivery held") == true,
            "\(refused.attention)")
        #expect(refused.text("queue-depth") == "2")
        let retrying = refused.rows("retrying")
        #expect(
            Set(retrying.map { $0.cells.prefix(2).joined(separator: " ") })
                == ["InvalidProviderToken 1", "ServiceUnavailable 1"], "\(retrying)")
        #expect(retrying.allSatisfy { $0.kind == "retrying" && Int($0.cells[2]) != nil })
        // Deleting the two devices ends their deliveries (unregistered: DeviceDeleted).
        for device in ["revoked", "busy"] {
            #expect(try world.request("DELETE", "/v1/devices/\(device)", token: world.adminToken).status == 204)
        }

        // An instance that died without a word a minute ago: still listed, marked stale.
        let now = GatewayClock.milliseconds()
        try world.store.heartbeat(
            InstanceRecord(id: "gw-dead-1", version: "1.4.0", startedAt: now - 600_000, heartbeatAt: now - 60_000),
            serving: [], forgetBefore: 0)
        let stale = try render("stale-instance")
        #expect(stale.attention.map(\.level) == ["warning"], "\(stale.attention)")
        #expect(stale.attention.first?.message.hasPrefix("instance gw-dead-1 has not been heard from") == true)
        #expect(stale.rows("retrying").isEmpty, "the deleted devices' deliveries ended")
        #expect(
            stale.rows("outcomes").map(\.cells).contains(["unregistered", "DeviceDeleted", "2"]),
            "\(stale.rows("outcomes"))")
        let instances = stale.rows("instances")
        #expect(instances.contains { $0.kind == "stale" && $0.cells.first == "gw-dead-1" }, "\(instances)")
        #expect(instances.contains { $0.kind == "alive" && $0.cells.first == world.gateway.instanceID })
        try world.store.forgetInstance(id: "gw-dead-1")

        // The endpoint failed for longer than it may: disabled.
        let disabling = try world.store.recordWebhookAttempt(
            .failed(reason: "connection refused", retryAfterSeconds: nil), endpoint: "backend", in: .default, sent: [],
            unsent: [],
            at: now, disableBefore: now + 1)
        #expect(disabling.newlyDisabled)
        let disabled = try render("webhook-disabled")
        #expect(disabled.attention.map(\.level) == ["critical"], "\(disabled.attention)")
        #expect(
            disabled.attention.first?.message
                == "webhook endpoint backend is disabled: pushseal-gateway webhook enable")
        #expect(disabled.rows("webhooks").map(\.kind) == ["disabled"])
        #expect(disabled.rows("webhooks").first?.cells.prefix(2) == ["backend", "disabled"])

        let page = try #require(try GatewayHTTP.send("GET", url, body: nil, token: nil, contentType: nil))
        let policy = page.headers["content-security-policy"] ?? ""
        #expect(policy.contains("script-src 'self'") && !policy.contains("script-src 'unsafe-inline'"), "\(policy)")
        #expect(!String(decoding: page.body, as: UTF8.self).contains("<script>"), "no inline script")
        let script = try #require(try GatewayHTTP.send("GET", url + ".js", body: nil, token: nil, contentType: nil))
        #expect(script.status == 200 && script.headers["content-type"]?.hasPrefix("text/javascript") == true)
        let api = try world.request("GET", "/v1/status", token: world.adminToken)
        #expect(api.status == 200 && api.json?["webhooks"]?.arrayValue?.first?.objectValue?["disabled"] == .bool(true))
        #expect(try world.request("GET", "/v1/status").status == 401, "the API's status needs a token")
        #expect(try world.request("GET", "/status").status == 404, "the page is never on the API's listener")
    }

    @Test(
        "an app with receipts: the status page and /v1/status show the last hour's confirmed share and top degrade reasons, and warn from 20 receipts a tenth degraded",
        arguments: GatewayBackend.allCases)
    func receiptsOfTheLastHour(_ backend: GatewayBackend) throws {
        guard let chromium = Self.chromium else {
            Issue.record("chromium is not installed: make test installs Debian's chromium")
            return
        }
        let world = try GatewayWorld(
            backend, settings: #""metrics_listen": "127.0.0.1:0""#, appSettings: GatewayReceiptTests.receipts)
        let tokens = (1...21).map { GatewayWorld.deviceToken("00aa", $0) }
        for (index, token) in tokens.enumerated() { try world.registerDevice("d\(index)", user: "u1", token: token) }
        let accepted = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(GatewayReceiptTests.alert)}"#,
            token: world.adminToken)
        #expect(accepted.status == 202)
        let delivered = try tokens.enumerated().map { index, token in
            try GatewayReceiptTests.delivered(world, token: token, device: "d\(index)")
        }
        #expect(
            try world.eventually {
                try world.store.push(id: accepted.json?["id"]?.stringValue ?? "", in: .default)?.deliveries
                    .allSatisfy { $0.status == .sent } == true
            })
        func post(_ index: Int, _ body: String, display: Bool) throws {
            let ticket = display ? delivered[index].display : delivered[index].failure
            let answer = try GatewayReceiptTests.post(
                world, delivered[index].id, GatewayReceiptTests.capability(ticket), body)
            #expect(answer.status == 204)
        }
        func receipts() throws -> JSONObject? {
            let status = try world.request("GET", "/v1/status", token: world.adminToken).json
            return status?["apps"]?.arrayValue?.first?.objectValue?["receipts"]?.objectValue
        }
        func attention() throws -> [String] {
            let status = try world.request("GET", "/v1/status", token: world.adminToken).json
            return (status?["attention"]?.arrayValue ?? []).compactMap { $0.objectValue?["message"]?.stringValue }
        }
        let none = try #require(try receipts())
        #expect(none["sent"] == .number(JSONNumber(21)) && none["unreported"] == .number(JSONNumber(21)))
        #expect(none["confirmed_share"]?.numberValue?.doubleValue == 0 && none["top_reasons"] == .array([]))

        // 15 displayed, 3 unknown-key, 1 untrusted-sender: 19 receipts, too few to warn of.
        for index in 0..<15 { try post(index, GatewayReceiptTests.displayed, display: true) }
        for index in 15..<18 { try post(index, GatewayReceiptTests.degraded("unknown-key"), display: false) }
        try post(18, GatewayReceiptTests.degraded("untrusted-sender"), display: true)
        let few = try #require(try receipts())
        #expect(few["displayed"] == .number(JSONNumber(15)) && few["degraded"] == .number(JSONNumber(4)), "\(few)")
        #expect(few["unreported"] == .number(JSONNumber(2)))
        let quiet = try attention()
        #expect(quiet.isEmpty, "\(quiet)")
        // The twentieth: 5 of 20 degraded.
        try post(19, GatewayReceiptTests.degraded("untrusted-sender"), display: false)
        let shown = try #require(try receipts())
        #expect(shown["confirmed_share"]?.numberValue?.doubleValue == 0.714, "15 of 21: \(shown)")
        let top = shown["top_reasons"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(top.map { $0["reason"] } == [.string("unknown-key"), .string("untrusted-sender")])
        #expect(top.map { $0["count"] } == [.number(JSONNumber(3)), .number(JSONNumber(2))])
        #expect(try attention().contains { $0.hasPrefix("app default: 5 of the last hour's 20 receipts") })

        let port = try #require(world.gateway.operationsPort)
        let page = try RenderedPage(
            "http://127.0.0.1:\(port)/status", state: "receipts-\(backend)", chromium: chromium,
            profile: world.directory.file("chromium"))
        #expect(page.loaded)
        #expect(
            page.rows("receipts").map(\.cells)
                == [["default", "21", "15", "5", "1", "71.4 %", "unknown-key 3, untrusted-sender 2"]])
        #expect(page.rows("receipts").map(\.kind) == ["degrading"])
        #expect(page.attention.map(\.level) == ["warning"], "\(page.attention)")
    }

    @Test(
        "deploy/: the example configuration parses, runtime-packages.txt covers every linked library, the systemd unit passes systemd-analyze verify"
    )
    func deploymentFiles() throws {
        let deploy = TestVectors.packageRoot.appendingPathComponent("deploy")
        let example = deploy.appendingPathComponent("gateway.example.json").path
        let configuration = try GatewayConfiguration(
            json: Array(try Data(contentsOf: URL(fileURLWithPath: example))), path: example)
        #expect(configuration.metricsListen?.port == 9464 && configuration.apps.first?.webPush != nil)
        #expect(configuration.drainSeconds < 30, "the drain ends before the unit's stop timeout")

        // Every library the binaries need, beyond the C runtime and Swift's own, comes from a package
        // that runtime-packages.txt names.
        let listed = Set(
            try String(contentsOf: deploy.appendingPathComponent("runtime-packages.txt"), encoding: .utf8)
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init))
        let builtIn =
            /^(libc|libm|libstdc\+\+|libgcc_s|ld-linux.*|libswift.*|libFoundation.*|libdispatch|libBlocksRuntime|lib_FoundationICU)\.so.*/
        for binary in ["pushseal-gateway", "pushseal"] {
            let path = GatewayProcessWorld.executable.deletingLastPathComponent().appendingPathComponent(binary)
            let dynamic = try CLIRunner.run(
                executable: URL(fileURLWithPath: "/usr/bin/readelf"), ["-d", path.path], input: Data(), in: nil)
            let needed = dynamic.output.matches(of: /\(NEEDED\)\s+Shared library: \[([^\]]+)\]/).map {
                String($0.output.1)
            }
            #expect(needed.contains("libsodium.so.23"), "\(binary): \(needed)")
            for library in needed where library.wholeMatch(of: builtIn) == nil {
                let owner = try CLIRunner.run(
                    executable: URL(fileURLWithPath: "/usr/bin/dpkg"), ["-S", "*/\(library)"], input: Data(), in: nil)
                let package = owner.output.split(separator: ":").first.map(String.init) ?? "?"
                #expect(
                    listed.contains(package), "\(binary) needs \(library), from \(package), not in runtime-packages.txt"
                )
            }
        }

        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else {
            Issue.record("systemd-analyze is not installed: make test installs Debian's systemd")
            return
        }
        // The unit names /usr/local/bin; verify checks that the binary exists, so point it at the build.
        let directory = TemporaryDirectory()
        let unit = try String(
            contentsOf: deploy.appendingPathComponent("pushseal-gateway.service"), encoding: .utf8)
        #expect(unit.contains("TimeoutStopSec=30"))
        let file = try directory.write(
            "pushseal-gateway.service",
            unit.replacingOccurrences(
                of: "/usr/local/bin/pushseal-gateway", with: GatewayProcessWorld.executable.path))
        let verified = try CLIRunner.run(
            executable: URL(fileURLWithPath: analyze), ["verify", file], input: Data(), in: directory.path)
        #expect(verified.status == 0 && verified.errors.isEmpty, "\(verified.errors)")
    }

    @Test("a clean stop takes the instance off the status page's list, instead of leaving it to age")
    func cleanStopLeavesTheList() throws {
        let world = try GatewayWorld()
        let id = world.gateway.instanceID
        #expect(try world.eventually { try world.store.instances().contains { $0.id == id } }, "its first heartbeat")
        world.gateway.stop()
        #expect(try !world.store.instances().contains { $0.id == id }, "gone with the stop")
    }
}
