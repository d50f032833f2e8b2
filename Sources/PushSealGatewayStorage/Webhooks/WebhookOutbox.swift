internal import PushSealCore
package import PushSealGatewayModel

/// The webhook outbox, for either store: one row per event and endpoint, queued in the
/// transaction that records what happened, leased by the endpoint's worker, and ended as `sent`
/// or `failed`; and one row per endpoint that has failed, with its run of failures, its next
/// attempt and whether it is disabled. Every function runs in the caller's transaction.
package enum WebhookOutbox {
    /// The reason of an event whose retry window passed.
    package static let retryWindowPassedReason = "RetryWindowPassed"

    /// A new event's id: `msg_` and 32 random hex digits.
    package static func newEventID() -> String { "msg_" + RandomUUID.make().filter { $0 != "-" } }

    /// Queues `events` for the endpoints `routing` subscribes to their apps' events of their types.
    package static func queue(_ events: [WebhookEvent], routing: WebhookRouting, _ sql: StatementRunner) throws {
        for event in events {
            for endpoint in routing.endpoints(for: event.type, in: event.app) {
                try sql(
                    "INSERT INTO webhook_events (event_id, endpoint, type, body, created_at, app, next_attempt_at, "
                        + "status) VALUES (\(sql.markers(6)), \(sql.placeholder(5)), 'queued')",
                    [
                        .text(event.id), .text(endpoint), .text(event.type.rawValue), .text(event.body),
                        .integer(event.createdAt), .text(event.app.name),
                    ])
            }
        }
    }

    /// Ends as failed the queued events of `app`'s `endpoint` created before `expireBefore`, then, unless
    /// the endpoint is disabled or waiting for its next attempt, leases up to `limit` of its
    /// queued events, oldest first, to `owner` until `leaseUntil`, skipping the rows another
    /// instance holds (``SQLDialect/skipLocked``).
    package static func claim(
        endpoint: String, in app: AppID, limit: Int, at time: Int64, expireBefore: Int64, leaseUntil: Int64,
        owner: String, _ sql: StatementRunner
    ) throws -> WebhookClaim {
        let p = sql.placeholder
        let appName = DatabaseValue.text(app.name)
        var claim = WebhookClaim()
        claim.expired =
            try sql(
                "UPDATE webhook_events SET status = 'failed', reason = \(p(1)), finished_at = \(p(2)), "
                    + "lease_owner = NULL, lease_until = NULL WHERE endpoint = \(p(3)) AND app = \(p(5)) "
                    + "AND status = 'queued' AND created_at < \(p(4)) AND (lease_until IS NULL OR lease_until <= \(p(2))) "
                    + "RETURNING id",
                [.text(retryWindowPassedReason), .integer(time), .text(endpoint), .integer(expireBefore), appName]
            ).count
        if let state = try sql(
            "SELECT disabled_at, retry_at FROM webhook_endpoints WHERE name = \(p(1)) AND app = \(p(2))",
            [.text(endpoint), appName]
        ).first {
            claim.disabled = state[0].integer != nil
            if let retryAt = state[1].integer, retryAt > time { claim.waitsUntil = retryAt }
        }
        guard !claim.disabled, claim.waitsUntil == nil else { return claim }
        let rows = try sql(
            "SELECT \(QueuedColumn.list) FROM webhook_events WHERE endpoint = \(p(1)) AND app = \(p(4)) "
                + "AND status = 'queued' AND (lease_until IS NULL OR lease_until <= \(p(2))) ORDER BY id LIMIT \(p(3))"
                + sql.dialect.skipLocked,
            [.text(endpoint), .integer(time), .integer(Int64(limit)), appName]
        ).map(StoredRow<QueuedColumn>.init)
        for row in rows {
            try sql(
                "UPDATE webhook_events SET lease_owner = \(p(1)), lease_until = \(p(2)) WHERE id = \(p(3))",
                [.text(owner), .integer(leaseUntil), row[.id]])
            claim.events.append(
                QueuedWebhookEvent(
                    rowID: row[.id].integer ?? 0, eventID: row[.eventID].text ?? "", body: row[.body].text ?? "",
                    attempts: Int(row[.attempts].integer ?? 0)))
        }
        return claim
    }

    /// The columns a claimed event is read from.
    package enum QueuedColumn: Int, StoredColumns {
        case id, eventID, body, attempts

        package var sql: String {
            switch self {
            case .id: "id"
            case .eventID: "event_id"
            case .body: "body"
            case .attempts: "attempts"
            }
        }
    }

    /// Records the attempt that sent `sent` (the rows of one message) to `app`'s `endpoint`, and releases
    /// the leases of `unsent` (claimed, not tried: they go in a later round). A delivered message
    /// ends its events and clears the endpoint's failures; a failed one counts an attempt on each
    /// of its events, sets the endpoint's next attempt (5 s doubled at each failure in a row, at
    /// most an hour, or the receiver's `Retry-After` when longer) and disables it when it has
    /// failed without a success since before `disableBefore`.
    package static func record(
        _ attempt: WebhookAttempt, endpoint: String, in app: AppID, sent: [Int64], unsent: [Int64], at time: Int64,
        disableBefore: Int64, _ sql: StatementRunner
    ) throws -> WebhookEndpointState {
        let p = sql.placeholder
        let appName = DatabaseValue.text(app.name)
        if !unsent.isEmpty {
            try sql(
                "UPDATE webhook_events SET lease_owner = NULL, lease_until = NULL WHERE id IN (\(sql.markers(unsent.count)))",
                unsent.map(DatabaseValue.integer))
        }
        let ids = sql.markers(sent.count, from: 3)
        switch attempt {
        case .delivered:
            if !sent.isEmpty {
                try sql(
                    "UPDATE webhook_events SET status = 'sent', attempts = attempts + 1, reason = NULL, finished_at = \(p(1)), "
                        + "lease_owner = NULL, lease_until = NULL WHERE status = \(p(2)) AND id IN (\(ids))",
                    [.integer(time), .text("queued")] + sent.map(DatabaseValue.integer))
            }
            try sql(
                "INSERT INTO webhook_endpoints (name, app, failures) VALUES (\(p(1)), \(p(2)), 0) "
                    + "ON CONFLICT (name, app) DO UPDATE SET failures = 0, failing_since = NULL, retry_at = NULL",
                [.text(endpoint), appName])
            return WebhookEndpointState(failures: 0, newlyDisabled: false, retryAt: nil)
        case .failed(let reason, let retryAfterSeconds):
            if !sent.isEmpty {
                try sql(
                    "UPDATE webhook_events SET attempts = attempts + 1, reason = \(p(1)), lease_owner = NULL, "
                        + "lease_until = NULL WHERE status = \(p(2)) AND id IN (\(ids))",
                    [.text(reason), .text("queued")] + sent.map(DatabaseValue.integer))
            }
            let row = try sql(
                "INSERT INTO webhook_endpoints (name, app, failures, failing_since) VALUES (\(p(1)), \(p(3)), 1, \(p(2))) "
                    + "ON CONFLICT (name, app) DO UPDATE SET failures = webhook_endpoints.failures + 1, "
                    + "failing_since = coalesce(webhook_endpoints.failing_since, excluded.failing_since) "
                    + "RETURNING failures, failing_since, disabled_at",
                [.text(endpoint), .integer(time), appName]
            ).first
            let failures = Int(row?[0].integer ?? 1)
            let failingSince = row?[1].integer ?? time
            let newlyDisabled = row?[2].integer == nil && failingSince < disableBefore
            let retryAt =
                time
                + Int64.random(
                    in: RetrySchedule.webhookBackoff(failures: failures, retryAfterSeconds: retryAfterSeconds))
            try sql(
                "UPDATE webhook_endpoints SET retry_at = \(p(1)), disabled_at = coalesce(disabled_at, \(p(2))) "
                    + "WHERE name = \(p(3)) AND app = \(p(4))",
                [.integer(retryAt), newlyDisabled ? .integer(time) : .null, .text(endpoint), appName])
            return WebhookEndpointState(failures: failures, newlyDisabled: newlyDisabled, retryAt: retryAt)
        }
    }

    /// Enables `app`'s `endpoint` again and clears its failures; false when it was not disabled.
    package static func enable(endpoint: String, in app: AppID, _ sql: StatementRunner) throws -> Bool {
        !(try sql(
            "UPDATE webhook_endpoints SET disabled_at = NULL, failures = 0, failing_since = NULL, retry_at = NULL "
                + "WHERE name = \(sql.placeholder(1)) AND app = \(sql.placeholder(2)) AND disabled_at IS NOT NULL "
                + "RETURNING name", [.text(endpoint), .text(app.name)])).isEmpty
    }

    /// Adds the queued events and the disabled endpoints to `statistics`, those `inApp` keeps
    /// (` AND app = ` a placeholder of `values`, or nothing for every app's).
    package static func count(
        into statistics: inout GatewayStatistics, inApp: String, _ values: [DatabaseValue], _ sql: StatementRunner
    ) throws {
        for row in try sql(
            "SELECT endpoint, count(*) FROM webhook_events WHERE status = 'queued'\(inApp) GROUP BY endpoint", values)
        {
            statistics.webhookEventsQueued[row[0].text ?? ""] = Int(row[1].integer ?? 0)
        }
        statistics.webhookEndpointsDisabled = Set(
            try sql("SELECT name FROM webhook_endpoints WHERE disabled_at IS NOT NULL\(inApp)", values).compactMap {
                $0[0].text
            })
    }

    /// The longest an event can be tried (`retry_hours` at most 168): a queued event older than
    /// that and the retention time belongs to an endpoint no longer configured, since the claims
    /// of a configured one end it sooner.
    package static let longestRetryMilliseconds: Int64 = 168 * 3_600_000

    /// Deletes a batch of one app's (parameter 1) events that ended before the cutoff (parameter
    /// 2), and of its queued ones made ``longestRetryMilliseconds`` before it (an endpoint removed
    /// from the configuration leaves them, and no claim ends them), at most parameter 3 (the
    /// parameters of ``RetentionStatements``). Each kind is found through an index of its own led
    /// by the app (`webhook_events_finished`, `webhook_events_stale`), so that a sweep with nothing
    /// to delete reads no table. Each batch skips the rows another instance's sweep holds.
    package static func deleteFinished(_ dialect: SQLDialect) -> String {
        let (p, locking) = (dialect.placeholder, dialect.skipLocked)
        return "DELETE FROM webhook_events WHERE id IN (SELECT id FROM (SELECT id FROM webhook_events "
            + "WHERE app = \(p(1)) AND status <> 'queued' AND finished_at < \(p(2)) ORDER BY finished_at "
            + "LIMIT \(p(3))\(locking)) AS ended UNION ALL SELECT id FROM (SELECT id FROM webhook_events "
            + "WHERE app = \(p(1)) AND status = 'queued' AND created_at < \(p(2)) - \(longestRetryMilliseconds) "
            + "ORDER BY created_at LIMIT \(p(3))\(locking)) AS stale LIMIT \(p(3))) RETURNING id"
    }
}
