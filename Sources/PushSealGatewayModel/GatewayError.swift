/// A failure of the gateway's set-up (configuration, keys, database), for the operator.
public struct GatewayError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the file or member; never a secret.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}
