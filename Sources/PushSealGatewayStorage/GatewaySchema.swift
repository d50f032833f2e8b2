/// The schema's version: one number names both stores' schemas (each has as many numbered
/// migrations), what `migrate` reports and `pushseal-gateway version` prints.
package enum GatewaySchema {
    /// The current version.
    package static let version = 13
}
