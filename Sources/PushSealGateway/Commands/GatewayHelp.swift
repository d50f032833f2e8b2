internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// What `pushseal-gateway help` prints: the synopsis of every command, and for
/// `help COMMAND` (or `COMMAND --help`) what that command does, what it prints and what it needs.
enum GatewayHelp {
    /// Every command's synopsis.
    static let usage = """
        usage: pushseal-gateway serve --config FILE
               pushseal-gateway migrate --config FILE
               pushseal-gateway health --config FILE
               pushseal-gateway token create --config FILE --scope devices|pushes|read|admin [--scope ...]
                                             [--app NAME | --all-apps] [--label TEXT] [--expires-days N]
               pushseal-gateway token list --config FILE
               pushseal-gateway token revoke --config FILE --id ID
               pushseal-gateway backup --config FILE --to FILE
               pushseal-gateway webhook secret
               pushseal-gateway webhook enable --config FILE --name NAME
               pushseal-gateway help [COMMAND]
               pushseal-gateway version
        """

    /// Where the contract is: the configuration, the API, the exit statuses.
    static let documentation = """
        The configuration, the API and every exit status: gateway-v1.md, and the operator's guide \
        operations.md (in /usr/share/doc/pushseal-gateway/ when installed from the Debian package; \
        docs/ in the source). Exit status: 0, or 2 with one line on standard error naming what is \
        wrong.
        """

    /// The commands' own words, by their name.
    private static let commands: [(name: String, text: String)] = [
        (
            "serve",
            """
            pushseal-gateway serve --config FILE

            Serves the API until SIGTERM or SIGINT, then drains: stops accepting, finishes the
            deliveries in flight within drain_seconds, and leaves the rest queued for the next start.
            Migrates the database first. Logs one JSON line per event on standard error.
            """
        ),
        (
            "migrate",
            """
            pushseal-gateway migrate --config FILE

            Creates or upgrades the database, then says what it did ("created at schema N",
            "upgraded from schema M to N", "is at schema N already"). Run it before a rolling upgrade.
            """
        ),
        (
            "health",
            """
            pushseal-gateway health --config FILE

            Asks the gateway serving FILE's configuration for GET /healthz on its listen address
            (127.0.0.1 for 0.0.0.0, ::1 for ::), within 5 seconds: a container's health check,
            which needs no shell and no curl. Exit status 0 when it answers 200, 1 when it does not
            answer or answers anything else (one line on standard error says which), 2 for a
            configuration error.
            """
        ),
        (
            "token",
            """
            pushseal-gateway token create --config FILE --scope devices|pushes|read|admin [--scope ...]
                                          [--app NAME | --all-apps] [--label TEXT] [--expires-days N]
            pushseal-gateway token list --config FILE
            pushseal-gateway token revoke --config FILE --id ID

            create prints a new token once (psg_<id>_<secret>); only its id and the SHA-256 of its
            secret are stored. The token acts in one app: --app names it, and is needed when the
            configuration has apps (without apps, the one app is default); --all-apps makes an
            operator's token, which reads the whole gateway's GET /v1/status and no app's data.
            list prints one JSON line per token, with its app (null for an operator's), never a
            secret. revoke refuses the token from the next request
            on, and says so.
            """
        ),
        (
            "backup",
            """
            pushseal-gateway backup --config FILE --to FILE

            Copies a SQLite database, consistent, while the gateway serves (PostgreSQL has its own
            tools: pg_dump). The copy is 0600.
            """
        ),
        (
            "webhook",
            """
            pushseal-gateway webhook secret
            pushseal-gateway webhook enable --config FILE --name NAME

            secret prints a new signing secret (whsec_...) for a webhook's secret_files; it reads no
            configuration. enable turns a webhook endpoint that failed for disable_after_hours back on.
            """
        ),
        (
            "version",
            """
            pushseal-gateway version

            The release, the API version and the database schema it writes.
            """
        ),
    ]

    /// The help for `topic` (a command's words; none for the whole synopsis).
    /// - Throws: ``GatewayError`` for a topic that is no command.
    static func text(for topic: [String]) throws(GatewayError) -> String {
        guard let first = topic.first else {
            return usage + "\n\nEach command's own help: pushseal-gateway help COMMAND.\n" + documentation
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            throw GatewayError("no command is named \(first); pushseal-gateway help lists them")
        }
        return command.text + "\n" + documentation
    }
}
