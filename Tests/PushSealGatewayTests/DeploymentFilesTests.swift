import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The files of `deploy/`, checked by the tools that run them in production, from Debian's
/// packages (`make test` installs nginx and prometheus, for promtool): each check fails when a
/// file stops working, rather than when an operator finds out. (The unit's `systemd-analyze
/// verify`, the example configuration and the runtime packages are `GatewayStatusPageTests`'.)
///
/// With `PUSHSEAL_DEPLOY_TOOLS_ROOT` set to the root of another Debian release (which
/// `scripts/deploy-check-stable.sh` makes, and runs this suite in, as root), nginx, promtool and
/// prometheus are that release's, run in it by chroot: the same checks hold on both releases.
@Suite("deployment files, checked by the real tools", .serialized)
struct DeploymentFilesTests {
    static let deploy = TestVectors.packageRoot.appendingPathComponent("deploy")

    /// The root whose nginx, promtool and prometheus run, when not this machine's.
    static let toolsRoot = ProcessInfo.processInfo.environment["PUSHSEAL_DEPLOY_TOOLS_ROOT"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// `path` on this machine, or nil (and an issue recorded) when it is not installed.
    static func tool(_ path: String) -> URL? {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            Issue.record("\(path) is not installed (make test installs it)")
            return nil
        }
        return URL(fileURLWithPath: path)
    }

    /// A deployment tool, `path` on this machine or in ``toolsRoot``: the command that runs it
    /// with `arguments` in `directory`; nil (and an issue recorded) when it is not installed.
    static func deployTool(_ path: String, _ arguments: [String], in directory: String) -> [String]? {
        guard let root = toolsRoot else {
            return tool(path).map { [$0.path] + arguments }
        }
        guard FileManager.default.isExecutableFile(atPath: root + path) else {
            Issue.record("\(path) is not installed in \(root)")
            return nil
        }
        // chroot starts in the root's /: a shell moves to the directory (the same path there).
        return ["/usr/sbin/chroot", root, "/bin/sh", "-c", #"cd "$0" && exec "$@""#, directory, path] + arguments
    }

    /// Runs deployment tool `path` with `arguments` in `directory`, to its end.
    static func runTool(_ path: String, _ arguments: [String], in directory: String) throws -> CLIRunner.Result? {
        guard let command = deployTool(path, arguments, in: directory) else { return nil }
        return try CLIRunner.run(
            executable: URL(fileURLWithPath: command[0]), Array(command.dropFirst()), input: Data(), in: directory)
    }

    /// `text` with `old` replaced by `new`, which must be there: a deploy file that changed shape
    /// fails here instead of being checked half-substituted.
    static func replacing(_ old: String, with new: String, in text: String) throws -> String {
        try #require(text.contains(old), "deploy file no longer has \(old)")
        return text.replacingOccurrences(of: old, with: new)
    }

    @Test(
        "deploy/kubernetes: the ConfigMap's gateway.json is a configuration the gateway takes, on PostgreSQL, listening on every address (the schemas: make kubernetes-check)"
    )
    func kubernetesConfiguration() throws {
        let path = Self.deploy.appendingPathComponent("kubernetes/configmap.yaml").path
        let manifest = try String(contentsOfFile: path, encoding: .utf8)
        let block = try #require(manifest.range(of: "  gateway.json: |\n"), "configmap.yaml has no gateway.json")
        let json = manifest[block.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { $0.hasPrefix("    ") }.map { $0.dropFirst(4) }.joined(separator: "\n")
        let configuration = try GatewayConfiguration(json: Array(json.utf8), path: path)
        #expect(configuration.listenHost == "0.0.0.0" && configuration.metricsListen?.host == "0.0.0.0")
        #expect(configuration.database.kind == "postgres", "several replicas need PostgreSQL")
    }

    @Test("promtool: the alert rules load, every alert's unit test passes, and the scrape configuration is valid")
    func prometheusRules() throws {
        let promtool = "/usr/bin/promtool"
        guard
            let checked = try Self.runTool(
                promtool, ["check", "rules", "prometheus-alerts.yml"], in: Self.deploy.path),
            let tested = try Self.runTool(
                promtool, ["test", "rules", "prometheus-alerts.test.yml"], in: Self.deploy.path),
            let configuration = try Self.runTool(promtool, ["check", "config", "prometheus.yml"], in: Self.deploy.path)
        else { return }
        #expect(checked.status == 0, "\(checked.output)\(checked.errors)")
        #expect(tested.status == 0 && tested.output.contains("SUCCESS"), "\(tested.output)\(tested.errors)")
        #expect(configuration.status == 0, "\(configuration.output)\(configuration.errors)")
        // Every alert has a test: the names in the rules and in the tests are the same set.
        let rules = try String(contentsOf: Self.deploy.appendingPathComponent("prometheus-alerts.yml"), encoding: .utf8)
        let tests = try String(
            contentsOf: Self.deploy.appendingPathComponent("prometheus-alerts.test.yml"), encoding: .utf8)
        let alerts = Set(rules.matches(of: /- alert: (\w+)/).map { String($0.1) })
        let covered = Set(tests.matches(of: /alertname: (\w+)/).map { String($0.1) })
        #expect(!alerts.isEmpty && alerts == covered, "alerts without a test: \(alerts.subtracting(covered))")
    }

    /// The documented nginx front, running on a free loopback port with a certificate of its own
    /// before the gateway instances on `upstreams` (ports on loopback); nil where the tool is missing.
    final class Front {
        let directory = TemporaryDirectory()
        let port: UInt16
        /// `nginx -t`'s outcome.
        let checked: CLIRunner.Result
        private let server: Int32

        init?(upstreams: [UInt16]) throws {
            guard let openssl = DeploymentFilesTests.tool("/usr/bin/openssl") else { return nil }
            let made = try CLIRunner.run(
                executable: openssl,
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                    "key.pem", "-out", "cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1",
                ], input: Data(), in: directory.path)
            #expect(made.status == 0, "\(made.errors)")
            port = try ChildProcess.freeLoopbackPort()
            var site = try String(
                contentsOf: DeploymentFilesTests.deploy.appendingPathComponent("nginx-pushseal-gateway.conf"),
                encoding: .utf8)
            let servers = upstreams.map { "server 127.0.0.1:\($0);" }.joined(separator: "\n    ")
            site = try DeploymentFilesTests.replacing("server 127.0.0.1:8080;", with: servers, in: site)
            site = try DeploymentFilesTests.replacing(
                "listen 443 ssl http2;", with: "listen 127.0.0.1:\(port) ssl http2;", in: site)
            site = try DeploymentFilesTests.replacing("listen [::]:443 ssl http2;", with: "", in: site)
            site = try DeploymentFilesTests.replacing(
                "/etc/ssl/push.example.com/fullchain.pem", with: directory.file("cert.pem"), in: site)
            site = try DeploymentFilesTests.replacing(
                "/etc/ssl/push.example.com/privkey.pem", with: directory.file("key.pem"), in: site)
            _ = try directory.write("site.conf", site)
            let main = try directory.write(
                "nginx.conf",
                """
                pid \(directory.file("nginx.pid"));
                error_log \(directory.file("error.log"));
                events {}
                http {
                    access_log \(directory.file("access.log"));
                    client_body_temp_path \(directory.file("body"));
                    proxy_temp_path \(directory.file("proxy"));
                    include \(directory.file("site.conf"));
                }
                """)
            let nginx = "/usr/sbin/nginx"
            guard
                let checked = try DeploymentFilesTests.runTool(
                    nginx, ["-t", "-c", main, "-p", directory.path], in: directory.path),
                let serve = DeploymentFilesTests.deployTool(
                    nginx, ["-c", main, "-p", directory.path, "-g", "daemon off;"], in: directory.path)
            else { return nil }
            self.checked = checked
            server = try ChildProcess.start(serve, errors: directory.file("nginx.err"))
        }

        deinit { ChildProcess.stop(server) }

        /// `https://127.0.0.1:PORT`.
        var base: String { "https://127.0.0.1:\(port)" }

        /// curl through the front: the status and HTTP version.
        func curl(_ arguments: [String]) throws -> String {
            try CLIRunner.run(
                executable: URL(fileURLWithPath: "/usr/bin/curl"),
                [
                    "-sS", "--cacert", directory.file("cert.pem"), "-o", "/dev/null", "-w",
                    "%{http_code} %{http_version}",
                ]
                    + arguments, input: Data(), in: directory.path
            ).output
        }
    }

    @Test("nginx -t takes the TLS front, and requests go through it: the API and probes, never /metrics, no 70 KB body")
    func nginxFront() throws {
        let world = try GatewayWorld()
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        guard let front = try Front(upstreams: [world.gateway.port]) else { return }
        let checked = front.checked
        #expect(checked.status == 0 && checked.errors.contains("syntax is ok"), "\(checked.errors)")
        // No warning but the one nginx 1.25.1 and later give for "listen … http2", which 1.22 needs.
        let warnings = checked.errors.split(separator: "\n").filter { $0.contains("[warn]") }
        #expect(
            warnings.allSatisfy { $0.contains(#"the "listen ... http2" directive is deprecated"#) }, "\(warnings)")
        let base = front.base
        let curl = front.curl
        let directory = front.directory
        #expect(
            world.eventually(10) { (try? curl(["\(base)/healthz"])) == "200 2" },
            "the probe answers through nginx over HTTP/2")
        let devices = try curl(["-H", "Authorization: Bearer \(world.adminToken)", "\(base)/v1/users/u1/devices"])
        #expect(devices == "200 2", "the API, with its token, through the front")
        #expect(try curl(["\(base)/metrics"]) == "404 2", "metrics stay on the gateway's own listener")
        let large = try directory.write("large.json", String(repeating: "x", count: 70_000))
        let refused = try curl([
            "-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(world.adminToken)",
            "--data-binary", "@\(large)", "\(base)/v1/pushes",
        ])
        #expect(refused == "413 2", "nginx refuses a body the gateway would refuse")
    }

    @Test("two instances on PostgreSQL behind the front, one killed: every request through it answered, none 502")
    func nginxLosesAnInstance() throws {
        let database = try GatewayBackend.postgres.newDatabase()
        let world = try GatewayProcessWorld(
            extra: #", "http": {"connections_per_address": 1024}"#, database: database, instances: 2)
        for instance in 0..<2 { try world.start(instance: instance) }
        #expect(try world.registerDevice() == 201)
        guard let front = try Front(upstreams: world.ports) else { return }
        #expect(eventually(10) { (try? front.curl(["\(front.base)/healthz"])) == "200 2" })
        world.kill(SIGKILL, instance: 1)
        var statuses: [String: Int] = [:]
        for index in 0..<60 {
            let status = try front.curl([
                "-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(world.token)",
                "--data", #"{"to":{"user":"u"},"payload":{"aps":{"alert":"n"}},"idempotency_key":"k-\#(index)"}"#,
                "\(front.base)/v1/pushes",
            ])
            statuses[status, default: 0] += 1
            // Past nginx's fail_timeout (10 s), it tries the dead instance again.
            if index == 30 { Thread.sleep(forTimeInterval: 11) }
        }
        #expect(statuses == ["202 2": 60], "\(statuses)")
    }
    /// Every `expr` of the Grafana dashboard, in its panels' order.
    static func dashboardQueries() throws -> [String] {
        let data = try Data(contentsOf: deploy.appendingPathComponent("grafana-dashboard.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        return panels.flatMap { panel in
            (panel["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String }
        }
    }

    @Test(
        "a real Prometheus scrapes a running gateway as deploy/prometheus.yml says: the alerts' job is up, every alert rule evaluates, every dashboard query returns series"
    )
    func prometheusScrapesTheGateway() throws {
        // A webhook endpoint (its series are per endpoint), a push sent and one to a token gone.
        let secrets = TemporaryDirectory()
        let world = try GatewayWorld.withWebhookEndpoint(secrets: secrets)
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        try world.registerDevice("gone", user: "u1", token: GatewayWorld.deviceToken("0411", 2))
        let push = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"hi"}}}"#,
            token: world.adminToken)
        let id = try #require(push.json?["id"]?.stringValue)
        #expect(try world.eventually { try world.hasEnded(push: id) })
        let metrics = try #require(world.gateway.operationsPort)

        // deploy/prometheus.yml, scraping this gateway every second and evaluating every second.
        let directory = TemporaryDirectory()
        var configuration = try String(
            contentsOf: Self.deploy.appendingPathComponent("prometheus.yml"), encoding: .utf8)
        configuration = try Self.replacing("scrape_interval: 15s", with: "scrape_interval: 1s", in: configuration)
        configuration = try Self.replacing(
            "evaluation_interval: 1m", with: "evaluation_interval: 1s", in: configuration)
        configuration = try Self.replacing(
            #"["gw-1.internal:9464", "gw-2.internal:9464"]"#, with: #"["127.0.0.1:\#(metrics)"]"#, in: configuration)
        configuration = try Self.replacing(
            "- prometheus-alerts.yml", with: "- \(Self.deploy.appendingPathComponent("prometheus-alerts.yml").path)",
            in: configuration)
        let file = try directory.write("prometheus.yml", configuration)
        let port = try ChildProcess.freeLoopbackPort()
        guard
            let serve = Self.deployTool(
                "/usr/bin/prometheus",
                [
                    "--config.file=\(file)", "--storage.tsdb.path=\(directory.file("data"))",
                    "--web.listen-address=127.0.0.1:\(port)",
                ], in: directory.path)
        else { return }
        let server = try ChildProcess.start(serve, errors: directory.file("prometheus.log"))
        defer { ChildProcess.stop(server) }
        let base = "http://127.0.0.1:\(port)"
        func api(_ path: String) -> [String: Any]? {
            guard let answer = try? GatewayHTTP.send("GET", base + path, contentType: nil), answer.status == 200 else {
                return nil
            }
            return try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        }
        func query(_ expression: String) -> [[String: Any]]? {
            let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            guard let answer = api("/api/v1/query?query=\(encoded)"), answer["status"] as? String == "success" else {
                return nil
            }
            return (answer["data"] as? [String: Any])?["result"] as? [[String: Any]]
        }
        // Three scrapes at least, so that a rate over any window has two samples to compare.
        #expect(
            world.eventually(60) {
                let scrapes = query(#"count_over_time(up{job="pushseal-gateway"}[1m])"#)?.first?["value"] as? [Any]
                return Int(scrapes?.last as? String ?? "") ?? 0 >= 3
            },
            "Prometheus scraped the gateway: \((try? String(contentsOfFile: directory.file("prometheus.log"), encoding: .utf8))?.suffix(1_500) ?? "")"
        )
        let up = query(#"up{job="pushseal-gateway"}"#)?.first?["value"] as? [Any]
        #expect(up?.last as? String == "1", "the job the alerts name is the one scraped")

        let queries = try Self.dashboardQueries()
        #expect(queries.count >= 20, "\(queries.count) queries")
        for expression in queries {
            let result = query(expression)
            #expect(result != nil, "Prometheus refuses the dashboard's query \(expression)")
            #expect(result?.isEmpty == false, "no series for the dashboard's query \(expression)")
        }

        let rules = try String(contentsOf: Self.deploy.appendingPathComponent("prometheus-alerts.yml"), encoding: .utf8)
        let alerts = rules.matches(of: /- alert: (\w+)/).count
        var evaluated: [[String: Any]] = []
        #expect(
            world.eventually(30) {
                let groups = (api("/api/v1/rules")?["data"] as? [String: Any])?["groups"] as? [[String: Any]] ?? []
                evaluated = groups.flatMap { $0["rules"] as? [[String: Any]] ?? [] }
                return evaluated.count == alerts && evaluated.allSatisfy { $0["health"] as? String == "ok" }
            },
            "every alert rule loaded and evaluated: \(evaluated.map { "\($0["name"] ?? "?"): \($0["health"] ?? "?") \($0["lastError"] ?? "")" })"
        )
    }
}
