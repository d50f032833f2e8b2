internal import PushSealCore
internal import PushSealGatewayStorage

/// What `pushseal-gateway version` prints and `pushseal_gateway_build_info` exports.
enum GatewayVersion {
    /// The release: the package's (up to 1.3.10 the gateway had a number of its own).
    static let number = PushSealRelease.version
    /// The API version the gateway serves (gateway-v1.md).
    static let api = "v1"

    /// `pushseal-gateway 1.4.0 (API v1, schema 9)`.
    static var description: String {
        "pushseal-gateway \(number) (API \(api), schema \(GatewaySchema.version))"
    }
}
