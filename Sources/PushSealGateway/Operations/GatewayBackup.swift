internal import PushSealGatewayModel
internal import PushSealGatewayStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `pushseal-gateway backup --config FILE --to FILE`: a consistent copy of a SQLite gateway's
/// database, taken while it serves (gateway-v1.md, "Backups and restores"). PostgreSQL has its own
/// tools for that (`pg_dump`), which the command names instead.
enum GatewayBackup {
    /// Copies the configuration's database to a new file `target`.
    /// - Throws: ``GatewayError`` for PostgreSQL, an existing `target`, or a failed copy.
    static func run(_ configuration: GatewayConfiguration, to target: String) throws(GatewayError) {
        guard case .sqlite(let path) = configuration.database else {
            throw GatewayError(
                "backup copies a SQLite database; for PostgreSQL use pg_dump -Fc (gateway-v1.md, \"Backups and restores\")"
            )
        }
        guard access(path, F_OK) == 0 else { throw GatewayError("backup: \(path) does not exist") }
        do {
            try SQLiteGatewayStore(path: path).backup(to: target)
        } catch {
            throw GatewayError("backup of \(path): \(error)")
        }
    }
}
