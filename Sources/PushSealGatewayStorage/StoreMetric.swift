/// A counter a store keeps of its own work, which `/metrics` exports beside the gateway's: each
/// database names what matters for it (SQLite its one writer's busy time); the layers above
/// render them without knowing which database they come from.
package struct StoreMetric: Sendable, Equatable {
    /// The name after `pushseal_gateway_`: `sqlite_writer_busy_seconds_total`.
    package let name: String
    /// Its `HELP` text.
    package let help: String
    /// Its value.
    package let value: Double

    /// A counter `name`, described by `help`, at `value`.
    package init(_ name: String, help: String, value: Double) {
        self.name = name
        self.help = help
        self.value = value
    }
}
