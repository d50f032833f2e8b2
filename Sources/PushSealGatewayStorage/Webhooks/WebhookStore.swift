package import PushSealGatewayModel

/// The webhook outbox (``WebhookOutbox``): events queued with what they tell, claimed by each
/// endpoint's worker, and each endpoint's run of failures.
package protocol WebhookStore: Sendable {
    /// Ends the events of `app`'s `endpoint` whose retry window closed before `expireBefore`, then
    /// leases up to `limit` of its queued events unless it is disabled or waiting (``WebhookOutbox``).
    func claimWebhookEvents(
        endpoint: String, in app: AppID, limit: Int, at time: Int64, expireBefore: Int64, leaseMilliseconds: Int64,
        owner: String
    ) throws -> WebhookClaim
    /// Records one request to `app`'s `endpoint` carrying the events `sent`, and releases `unsent`;
    /// the endpoint's state after it (``WebhookOutbox/record(_:endpoint:in:sent:unsent:at:disableBefore:_:)``).
    func recordWebhookAttempt(
        _ attempt: WebhookAttempt, endpoint: String, in app: AppID, sent: [Int64], unsent: [Int64], at time: Int64,
        disableBefore: Int64
    ) throws -> WebhookEndpointState
    /// Enables `app`'s disabled endpoint again; false when it was not disabled.
    func enableWebhookEndpoint(_ endpoint: String, in app: AppID) throws -> Bool
    /// Deletes up to `limit` of `app`'s webhook events that ended before `time`, and queued ones
    /// left by an endpoint no longer configured (``WebhookOutbox/longestRetryMilliseconds``
    /// older); how many went.
    func deleteFinishedWebhookEvents(in app: AppID, endedBefore time: Int64, limit: Int) throws -> Int
}

extension WebhookStore where Self: SQLExecutor {
    package func claimWebhookEvents(
        endpoint: String, in app: AppID, limit: Int, at time: Int64, expireBefore: Int64, leaseMilliseconds: Int64,
        owner: String
    ) throws -> WebhookClaim {
        try transaction { sql in
            try WebhookOutbox.claim(
                endpoint: endpoint, in: app, limit: limit, at: time, expireBefore: expireBefore,
                leaseUntil: time + leaseMilliseconds, owner: owner, sql)
        }
    }

    package func recordWebhookAttempt(
        _ attempt: WebhookAttempt, endpoint: String, in app: AppID, sent: [Int64], unsent: [Int64], at time: Int64,
        disableBefore: Int64
    ) throws -> WebhookEndpointState {
        try transaction { sql in
            try WebhookOutbox.record(
                attempt, endpoint: endpoint, in: app, sent: sent, unsent: unsent, at: time,
                disableBefore: disableBefore, sql)
        }
    }

    package func enableWebhookEndpoint(_ endpoint: String, in app: AppID) throws -> Bool {
        try transaction { sql in try WebhookOutbox.enable(endpoint: endpoint, in: app, sql) }
    }

    package func deleteFinishedWebhookEvents(in app: AppID, endedBefore time: Int64, limit: Int) throws -> Int {
        try write(
            WebhookOutbox.deleteFinished(dialect), RetentionStatements.parameters(app, before: time, limit: limit)
        )
        .count
    }
}
