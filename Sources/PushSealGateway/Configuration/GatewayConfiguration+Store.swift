internal import PushSealGatewayModel
internal import PushSealGatewayStorage

extension GatewayConfiguration {
    /// The store `database` names, migrated, and what the migration did.
    /// - Throws: `GatewayError` naming the database when it cannot be opened or migrated.
    func openStore() throws(GatewayError) -> (any GatewayStore, SchemaChange) {
        do {
            let store: any GatewayStore
            switch database {
            case .sqlite(let path):
                store = try SQLiteGatewayStore(path: path)
            case .postgres(let url, let passwordFile, let connections):
                #if canImport(CLibPQ)
                    store = PostgresGatewayStore(url: url, passwordFile: passwordFile, connections: connections)
                #else
                    throw GatewayError("this build has no PostgreSQL client (libpq)")
                #endif
            }
            return (store, try store.migrate())
        } catch {
            throw GatewayError("database \(database): \(error)")
        }
    }

    /// The database connections the gateway holds at most: SQLite's writer and readers, or the
    /// PostgreSQL pool's size.
    var databaseConnections: Int {
        switch database {
        case .sqlite: 1 + SQLiteDatabase.readers
        case .postgres(_, _, let connections): connections
        }
    }
}
