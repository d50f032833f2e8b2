package import PushSealGatewayModel

/// The API's access tokens: each kept by id with its secret's hash, its scopes and its use.
package protocol AccessTokenStore: Sendable {
    /// Stores a new access token (its secret only as a hash).
    func addAccessToken(_ token: AccessTokenRecord) throws
    /// The token with `id`, revoked or not.
    func accessToken(id: String) throws -> AccessTokenRecord?
    /// Every token, oldest first.
    func accessTokens() throws -> [AccessTokenRecord]
    /// Revokes the token with `id` (a revoked one keeps its first revocation's time); false when
    /// there is none.
    func revokeAccessToken(id: String, at time: Int64) throws -> Bool
    /// Records that the token with `id` was presented at `time`.
    func touchAccessToken(id: String, at time: Int64) throws
}

extension AccessTokenStore where Self: SQLExecutor {
    package func addAccessToken(_ token: AccessTokenRecord) throws {
        let (statement, values) = token.insert(placeholder: dialect.placeholder)
        try write(statement, values)
    }

    package func accessToken(id: String) throws -> AccessTokenRecord? {
        try read("\(AccessTokenRecord.selectColumns) WHERE id = \(placeholder(1))", [.text(id)]).first.flatMap(
            AccessTokenRecord.init(row:))
    }

    package func accessTokens() throws -> [AccessTokenRecord] {
        try read("\(AccessTokenRecord.selectColumns) ORDER BY created_at, id", []).compactMap(
            AccessTokenRecord.init(row:))
    }

    package func revokeAccessToken(id: String, at time: Int64) throws -> Bool {
        !(try write(
            "UPDATE access_tokens SET revoked_at = coalesce(revoked_at, \(placeholder(1))) "
                + "WHERE id = \(placeholder(2)) RETURNING id", [.integer(time), .text(id)])).isEmpty
    }

    package func touchAccessToken(id: String, at time: Int64) throws {
        try write(
            "UPDATE access_tokens SET last_used_at = \(placeholder(1)) WHERE id = \(placeholder(2))",
            [.integer(time), .text(id)])
    }
}
