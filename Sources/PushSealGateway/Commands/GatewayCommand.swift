internal import Dispatch
internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import PushSealPOSIX

#if canImport(Glibc)
    import Glibc
#endif

/// `pushseal-gateway`'s commands (gateway-v1.md, "Running it"):
///
/// ```
/// pushseal-gateway serve   --config FILE
/// pushseal-gateway migrate --config FILE
/// pushseal-gateway health  --config FILE
/// pushseal-gateway token create --config FILE --scope devices|pushes|read|admin [--scope …]
///                               [--app NAME | --all-apps] [--label TEXT] [--expires-days N]
/// pushseal-gateway token list   --config FILE
/// pushseal-gateway token revoke --config FILE --id ID
/// pushseal-gateway backup  --config FILE --to FILE
/// pushseal-gateway webhook secret
/// pushseal-gateway webhook enable --config FILE --name NAME
/// pushseal-gateway help [COMMAND] | COMMAND --help
/// pushseal-gateway version | --version
/// ```
///
/// Exit status 0 on success, 2 for a usage or configuration error; `health` exits 1 when the
/// gateway does not answer healthy.
public enum GatewayCommand {
    /// Runs the command in `arguments` (without the program name); the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        do {
            return try dispatch(arguments)
        } catch {
            printError("pushseal-gateway: \(error)")
            return 2
        }
    }

    private static func dispatch(_ arguments: [String]) throws(GatewayError) -> Int32 {
        switch arguments {
        case ["version"], ["--version"]:
            print(GatewayVersion.description)
            return 0
        case ["webhook", "secret"]:
            print(WebhookSigner.newSecret())
            return 0
        case let words where words.starts(with: ["webhook", "secret"]):
            throw GatewayError(
                "webhook secret takes no option: it prints a new secret (whsec_…) for a webhook's secret_files, "
                    + "and reads no configuration")
        case let words where words.first == "help" || words.contains("--help") || words.contains("-h"):
            let topic = words.filter { $0 != "help" && $0 != "--help" && $0 != "-h" }
            print(try GatewayHelp.text(for: topic))
            return 0
        default: break
        }
        var words = arguments[...]
        var command = [String]()
        while let word = words.first, !word.hasPrefix("-") {
            command.append(word)
            words = words.dropFirst()
        }
        var options: [String: [String]] = [:]
        while let name = words.first {
            guard name.hasPrefix("--") else {
                throw GatewayError("\(name) is not an option (options begin with --)\n\(GatewayHelp.usage)")
            }
            if Self.flags.contains(String(name.dropFirst(2))) {
                options[String(name.dropFirst(2)), default: []].append("")
                words = words.dropFirst()
                continue
            }
            guard words.count >= 2 else { throw GatewayError("\(name) needs a value\n\(GatewayHelp.usage)") }
            options[String(name.dropFirst(2)), default: []].append(words[words.index(after: words.startIndex)])
            words = words.dropFirst(2)
        }
        guard !command.isEmpty else { throw GatewayError("no command given\n\(GatewayHelp.usage)") }
        guard let configPath = options["config"]?.last else {
            throw GatewayError("\(command.joined(separator: " ")) needs --config FILE\n\(GatewayHelp.usage)")
        }
        let configuration = try GatewayConfiguration(json: try ConfiguredFile.contents(configPath), path: configPath)
        switch command {
        case ["serve"]:
            try serve(configuration)
            return 0
        case ["migrate"]:
            let (_, change) = try configuration.openStore()
            print("pushseal-gateway: \(configuration.database) \(change)")
            return 0
        case ["health"]:
            return GatewayHealthCheck.run(configuration)
        case ["backup"]:
            guard let target = options["to"]?.last else { throw GatewayError("backup needs --to FILE") }
            try GatewayBackup.run(configuration, to: target)
            print("pushseal-gateway: \(configuration.database) copied to \(target)")
            return 0
        case ["token", "create"]:
            var scopes = Set<AccessScope>()
            for name in options["scope"] ?? [] {
                guard let scope = AccessScope(rawValue: name) else {
                    throw GatewayError("--scope \(name) is not one of devices, pushes, read, admin")
                }
                scopes.insert(scope)
            }
            guard !scopes.isEmpty else { throw GatewayError("token create needs at least one --scope") }
            let label = options["label"]?.last
            if let label {
                guard (1...64).contains(label.utf8.count), label.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                    throw GatewayError("--label must be 1 to 64 printable ASCII characters")
                }
            }
            let now = GatewayClock.milliseconds()
            var expiresAt: Int64?
            if let text = options["expires-days"]?.last {
                guard let days = Int(text), (1...3_650).contains(days) else {
                    throw GatewayError("--expires-days must be a whole number of days from 1 to 3650, not \(text)")
                }
                expiresAt = now + Int64(days) * 86_400_000
            }
            let app = try Self.app(options["app"]?.last, allApps: options["all-apps"] != nil, in: configuration)
            let (store, _) = try configuration.openStore()
            let (text, record) = AccessTokens.make(
                scopes: scopes, in: app, at: now, label: label, expiresAt: expiresAt)
            do {
                try store.addAccessToken(record)
            } catch {
                throw GatewayError("database: \(error)")
            }
            print(text)
            return 0
        case ["token", "list"]:
            let (store, _) = try configuration.openStore()
            let tokens: [AccessTokenRecord]
            do {
                tokens = try store.accessTokens()
            } catch {
                throw GatewayError("database: \(error)")
            }
            for token in tokens {
                var object = JSONObject([
                    ("id", .string(token.id)), ("scopes", .array(token.scopes.sorted().map { .string($0.rawValue) })),
                    ("created_at", .number(JSONNumber(Int(token.createdAt)))),
                ])
                object["app"] = token.app.map { .string($0.name) } ?? .null
                if let label = token.label { object["label"] = .string(label) }
                if let expires = token.expiresAt { object["expires_at"] = .number(JSONNumber(Int(expires))) }
                if let used = token.lastUsedAt { object["last_used_at"] = .number(JSONNumber(Int(used))) }
                if let revoked = token.revokedAt { object["revoked_at"] = .number(JSONNumber(Int(revoked))) }
                print(JSONWriter.string(.object(object)))
            }
            return 0
        case ["token", "revoke"]:
            guard let id = options["id"]?.last else { throw GatewayError("token revoke needs --id ID") }
            let (store, _) = try configuration.openStore()
            let revoked: Bool
            do {
                revoked = try store.revokeAccessToken(id: id, at: GatewayClock.milliseconds())
            } catch {
                throw GatewayError("database: \(error)")
            }
            guard revoked else { throw GatewayError("no token has the id \(id)") }
            print("pushseal-gateway: token \(id) revoked; a request presenting it is refused from now on")
            return 0
        case ["webhook", "enable"]:
            guard let name = options["name"]?.last else { throw GatewayError("webhook enable needs --name NAME") }
            guard let endpoint = configuration.webhooks.first(where: { $0.settings.name == name }) else {
                throw GatewayError("no webhook endpoint is named \(name) in \(configPath)")
            }
            let (store, _) = try configuration.openStore()
            let enabled: Bool
            do {
                enabled = try store.enableWebhookEndpoint(name, in: endpoint.app)
            } catch {
                throw GatewayError("database: \(error)")
            }
            print("pushseal-gateway: webhook \(name) " + (enabled ? "enabled again" : "was not disabled"))
            return 0
        default:
            throw GatewayError("unknown command \(command.joined(separator: " "))\n\(GatewayHelp.usage)")
        }
    }

    /// The options that take no value.
    private static let flags: Set<String> = ["all-apps"]

    /// The app of a new token: the one `name` (`--app`) names in `configuration`, required when it
    /// has `apps` and `default` without them; nil with `allApps` (`--all-apps`), an operator's
    /// token over every app.
    /// - Throws: `GatewayError` when it is missing, names no configured app, or comes with
    ///   `--all-apps`.
    private static func app(_ name: String?, allApps: Bool, in configuration: GatewayConfiguration)
        throws(GatewayError) -> AppID?
    {
        let names = configuration.apps.map(\.id.name).joined(separator: ", ")
        if allApps {
            guard name == nil else { throw GatewayError("token create takes --app NAME or --all-apps, not both") }
            return nil
        }
        guard let name else {
            guard configuration.apps.count == 1, let only = configuration.apps.first else {
                throw GatewayError("token create needs --app NAME (one of \(names)), or --all-apps")
            }
            return only.id
        }
        guard let app = AppID(name), configuration.app(app) != nil else {
            throw GatewayError("--app \(name) is not an app of the configuration (its apps: \(names))")
        }
        return app
    }

    /// Serves until SIGTERM or SIGINT, then stops accepting, finishes the deliveries in flight and
    /// returns.
    private static func serve(_ configuration: GatewayConfiguration) throws(GatewayError) {
        // Dispatch reads these through a signalfd on Linux, so they arrive even when a parent (a
        // supervisor, a test runner) left them blocked; the crash tests start it that way.
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let stopRequested = DispatchSemaphore(value: 0)
        let sources = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stopRequested.signal() }
            source.resume()
            return source
        }
        let gateway = try Gateway(configuration: configuration)
        stopRequested.wait()
        gateway.stop()
        sources.forEach { $0.cancel() }
    }

    /// Writes `text` and a newline to standard error, unbuffered.
    static func printError(_ text: String) {
        let line = Array((text + "\n").utf8)
        line.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
