/// Where pushes go: Apple's production or sandbox host, or another (a mock, in tests).
public struct APNsEndpoint: Sendable, Hashable {
    /// The base URL, without a trailing slash.
    public let baseURL: String

    /// `https://api.push.apple.com`.
    public static let production = APNsEndpoint(baseURL: "https://api.push.apple.com")
    /// `https://api.sandbox.push.apple.com`, for development builds of the app.
    public static let sandbox = APNsEndpoint(baseURL: "https://api.sandbox.push.apple.com")

    /// An endpoint at `baseURL` (`https://host:port`).
    public init(baseURL: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// The request path for a device token.
    func path(deviceToken: String) -> String { "/3/device/\(deviceToken)" }
}
