import Foundation
import PushSealCore
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

    @Test("headless Chromium renders the status page with the store's figures; a screenshot goes to .build")
    func statusPage() throws {
        guard let chromium = Self.chromium else {
            Issue.record("chromium is not installed: make test installs Debian's chromium")
            return
        }
        let world = try GatewayWorld(settings: #""metrics_listen": "127.0.0.1:0""#)
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        try world.registerDevice("gone", user: "u1", token: GatewayWorld.deviceToken("0411", 2))
        try world.registerDevice("busy", user: "u2", token: GatewayWorld.deviceToken("5003", 3))
        for user in ["u1", "u2"] {
            _ = try world.request(
                "POST", "/v1/pushes", json: #"{"to":{"user":"\#(user)"},"payload":{"aps":{"alert":"hi"}}}"#,
                token: world.adminToken)
        }
        #expect(
            try world.eventually {
                let statistics = try world.store.statistics()
                return statistics.deliveries[.sent] == 1 && statistics.deliveries[.unregistered] == 1
                    && statistics.unregisteredDevices == 1
            })
        // An instance that died without a word a minute ago: still listed, marked stale.
        let now = GatewayClock.milliseconds()
        try world.store.heartbeat(
            InstanceRecord(id: "gw-dead-1", version: "1.4.0", startedAt: now - 600_000, heartbeatAt: now - 60_000),
            forgetBefore: 0)
        let port = try #require(world.gateway.operationsPort)
        let url = "http://127.0.0.1:\(port)/status"
        let flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(world.directory.file("chromium"))", "--virtual-time-budget=5000",
        ]
        let dom = try CLIRunner.run(
            executable: URL(fileURLWithPath: chromium), flags + ["--dump-dom", url], input: Data(),
            in: world.directory.path)
        #expect(dom.status == 0, "\(dom.errors.suffix(2_000))")
        func figure(_ id: String) -> String? {
            dom.output.firstMatch(of: try! Regex(#"id="\#(id)"[^>]*>([^<]*)<"#))?.output[1].substring.map(String.init)
        }
        #expect(dom.output.contains(#"data-loaded="yes""#), "the script read status.json")
        let page = try #require(try GatewayHTTP.send("GET", url, body: nil, token: nil, contentType: nil))
        let policy = page.headers["content-security-policy"] ?? ""
        #expect(policy.contains("script-src 'self'") && !policy.contains("script-src 'unsafe-inline'"), "\(policy)")
        #expect(!String(decoding: page.body, as: UTF8.self).contains("<script>"), "no inline script")
        let script = try #require(try GatewayHTTP.send("GET", url + ".js", body: nil, token: nil, contentType: nil))
        #expect(script.status == 200 && script.headers["content-type"]?.hasPrefix("text/javascript") == true)
        let statistics = try world.store.statistics()
        #expect(figure("devices-active") == "\(statistics.activeDevices)")
        #expect(figure("devices-unregistered") == "1")
        #expect(figure("queue-depth") == "\(statistics.deliveries[.queued] ?? 0)")
        #expect(dom.output.contains("<td>unregistered</td><td>Unregistered</td>"), "the last hour's outcomes")
        #expect(dom.output.contains(world.gateway.instanceID), "this instance's heartbeat")
        #expect(dom.output.contains(#"<tr class="stale"><td>gw-dead-1</td>"#), "the silent instance is marked stale")
        #expect(
            dom.output.contains(#"<li class="warning">instance gw-dead-1 has not been heard from"#),
            "and named above the figures, in the warning's colour")
        #expect(dom.output.contains(#"<tr class="alive"><td>\#(world.gateway.instanceID)</td>"#))

        let api = try world.request("GET", "/v1/status", token: world.adminToken)
        #expect(api.status == 200 && api.json?["devices"]?.objectValue?["unregistered"] == .number(JSONNumber(1)))
        #expect(try world.request("GET", "/v1/status").status == 401, "the API's status needs a token")
        #expect(try world.request("GET", "/status").status == 404, "the page is never on the API's listener")

        let screenshot = TestVectors.packageRoot.appendingPathComponent(".build/status-page.png").path
        try? FileManager.default.removeItem(atPath: screenshot)
        let shot = try CLIRunner.run(
            executable: URL(fileURLWithPath: chromium),
            flags + ["--window-size=1200,900", "--screenshot=\(screenshot)", url], input: Data(),
            in: world.directory.path)
        #expect(shot.status == 0 && FileManager.default.fileExists(atPath: screenshot), "\(shot.errors.suffix(500))")
        let png = (try? Data(contentsOf: URL(fileURLWithPath: screenshot))) ?? Data()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000)
    }

    @Test(
        "deploy/: the example configuration parses, runtime-packages.txt covers every linked library, the systemd unit passes systemd-analyze verify"
    )
    func deploymentFiles() throws {
        let deploy = TestVectors.packageRoot.appendingPathComponent("deploy")
        let example = deploy.appendingPathComponent("gateway.example.json").path
        let configuration = try GatewayConfiguration(
            json: Array(try Data(contentsOf: URL(fileURLWithPath: example))), path: example)
        #expect(configuration.metricsListen?.port == 9464 && configuration.webPush != nil)
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
