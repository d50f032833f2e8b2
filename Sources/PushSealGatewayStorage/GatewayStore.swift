/// Where the gateway keeps its state: one store per aggregate (access tokens, devices, the outbox,
/// the relay's endpoints, content kept to fetch, receipts, webhooks, operations), each written once over
/// ``SQLExecutor``, and the schema. The API and the workers see only these protocols, so that
/// PostgreSQL takes SQLite's place without touching them. Every method is one transaction.
package protocol GatewayStore: AccessTokenStore, DeviceStore, OutboxStore, RelayInboxStore, FetchObjectStore,
    ReceiptStore, WebhookStore, OperationsStore
{
    /// Creates or upgrades the schema to this version of the gateway; what it found and did.
    @discardableResult
    func migrate() throws -> SchemaChange

    /// True when the database answers a query.
    func isReachable() -> Bool

    /// Whether the database can write now, as its writes have found it (on a quiet gateway, the
    /// heartbeat's, every 10 s): readiness needs it, and the status page and
    /// `pushseal_gateway_store_writable` report it.
    var writeHealth: StoreWriteHealth { get }
}

extension GatewayStore where Self: SQLExecutor {
    package func isReachable() -> Bool { (try? read("SELECT 1", [])) != nil }
}
