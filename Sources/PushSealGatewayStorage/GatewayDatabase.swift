package import PushSealGatewayModel

/// The database a configuration names (`"database"`).
public enum GatewayDatabase: Sendable, Equatable, CustomStringConvertible {
    /// `sqlite:FILE`: one SQLite file, for one instance.
    case sqlite(path: String)
    /// `postgres://user@host:port/db` (or `postgresql://`): PostgreSQL, for any number of
    /// instances. The password is never in the URL: it comes from `passwordFile`
    /// (`database_password_file`, PostgreSQL's `.pgpass` format) or from `PGPASSFILE`.
    case postgres(url: String, passwordFile: String?, connections: Int)

    /// `sqlite` or `postgres`, for the `started` line.
    package var kind: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres: "postgres"
        }
    }

    /// What log lines and errors show: the file, or the URL (which holds no password).
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url, _, _): url
        }
    }

    /// The database of the `database` member `text`; relative SQLite paths go through `resolve`.
    /// - Throws: ``GatewayError`` when `text` is neither form, or holds a password.
    package static func parse(_ text: String, passwordFile: String?, connections: Int, resolve: (String) -> String)
        throws(GatewayError) -> GatewayDatabase
    {
        if text.hasPrefix("sqlite:"), text.count > 7 {
            return .sqlite(path: resolve(String(text.dropFirst(7))))
        }
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else {
            throw GatewayError("configuration $.database must be sqlite:FILE or postgres://USER@HOST:PORT/DATABASE")
        }
        // user:password@ would put the secret in a file read by every deployment tool.
        let authority = text.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).dropFirst(2).first
        if let authority, let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") {
            throw GatewayError(
                "configuration $.database must not hold a password: name a .pgpass file in "
                    + "database_password_file, or set PGPASSFILE")
        }
        return .postgres(url: text, passwordFile: passwordFile, connections: connections)
    }
}
