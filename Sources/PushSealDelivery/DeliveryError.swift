/// A delivery set-up problem (bad auth key, bad host): the message names it.
public struct DeliveryError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public let message: String

    /// An error explained by `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
