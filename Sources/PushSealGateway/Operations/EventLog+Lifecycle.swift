internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

extension EventLog {
    /// The `started` line: the version, this instance, where it listens, the database and its
    /// schema, the apps, the workers and limits `configuration` sets (gateway-v1.md, "Operations").
    func started(
        _ configuration: GatewayConfiguration, instance: String, port: UInt16, operationsPort: UInt16?,
        httpConnections: Int
    ) {
        var members: [(String, JSONValue)] = [
            ("version", .string(GatewayVersion.number)), ("instance", .string(instance)),
            ("listen", .string("\(configuration.listenHost):\(port)")),
            ("database", .string(configuration.database.kind)),
            ("schema", .number(JSONNumber(GatewaySchema.version))),
            ("apps", .array(configuration.apps.map { .string($0.id.name) })),
            ("apns_workers", .number(JSONNumber(configuration.workers))),
            ("webpush_workers", .number(JSONNumber(configuration.webPushWorkers ?? 0))),
            ("webhook_endpoints", .number(JSONNumber(configuration.webhooks.count))),
            ("http_connections", .number(JSONNumber(httpConnections))),
            ("retention_hours", .number(JSONNumber(configuration.retentionHours))),
            ("drain_seconds", .number(JSONNumber(configuration.drainSeconds))),
        ]
        if let operationsPort, let address = configuration.metricsListen {
            members.append(("metrics_listen", .string("\(address.host):\(operationsPort)")))
        }
        write("started", members)
        for warning in configuration.warnings {
            write("configuration-warning", [("path", .string(warning.path)), ("detail", .string(warning.message))])
        }
    }

    /// The `stopped` line: the pushes accepted and the attempts' outcomes since the start, whether
    /// the drain finished, and how long it took.
    func stopped(pushesAccepted: Int, outcomes: [String: Int], drained: Bool, milliseconds: Int) {
        write(
            "stopped",
            [
                ("pushes_accepted", .number(JSONNumber(pushesAccepted))),
                (
                    "deliveries",
                    .object(
                        JSONObject(outcomes.sorted { $0.key < $1.key }.map { ($0.key, .number(JSONNumber($0.value))) }))
                ),
                ("drained", .bool(drained)),
                ("duration_ms", .number(JSONNumber(milliseconds))),
            ])
    }
}
