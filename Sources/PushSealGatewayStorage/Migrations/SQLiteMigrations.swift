/// SQLite's schema, one numbered migration at a time: a database at schema N has run 1 to N, each
/// in a transaction of its own with `PRAGMA user_version = N`. A migration is never changed once
/// released; the next one is added at the end, and GatewaySchema.version moves with it.
package enum SQLiteMigrations {
    /// Every migration, numbered from 1 in order.
    package static let all: [SchemaMigration] = [
        SchemaMigration(
            1,
            """
            CREATE TABLE access_tokens (
                id TEXT PRIMARY KEY, secret_hash BLOB NOT NULL, scopes TEXT NOT NULL,
                created_at INTEGER NOT NULL, revoked_at INTEGER);
            CREATE TABLE devices (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL, token TEXT NOT NULL, topic TEXT NOT NULL,
                environment TEXT NOT NULL, public_key TEXT NOT NULL,
                registered_at INTEGER NOT NULL, unregistered_at INTEGER);
            CREATE INDEX devices_by_user ON devices (user_id, id);
            CREATE TABLE pushes (
                id TEXT PRIMARY KEY, idempotency_key TEXT UNIQUE, accepted_at INTEGER NOT NULL);
            CREATE TABLE deliveries (
                id INTEGER PRIMARY KEY, push_id TEXT NOT NULL REFERENCES pushes (id), device_id TEXT NOT NULL,
                token TEXT NOT NULL, environment TEXT NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL,
                expiration INTEGER, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL, lease_owner TEXT, lease_until INTEGER,
                apns_id TEXT, reason TEXT, accepted_at INTEGER NOT NULL, finished_at INTEGER);
            CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
            CREATE INDEX deliveries_by_push ON deliveries (push_id, id);
            """),
        // Web Push: a device is an APNs device or a subscription, and a delivery goes to a token or
        // an endpoint (its `address`). SQLite cannot drop NOT NULL, so both tables are rebuilt.
        SchemaMigration(
            2,
            """
            CREATE TABLE devices_v2 (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL, kind TEXT NOT NULL, token TEXT, topic TEXT,
                environment TEXT, public_key TEXT, endpoint TEXT, p256dh TEXT, auth TEXT,
                registered_at INTEGER NOT NULL, unregistered_at INTEGER);
            INSERT INTO devices_v2 (id, user_id, kind, token, topic, environment, public_key, registered_at, unregistered_at)
                SELECT id, user_id, 'apns', token, topic, environment, public_key, registered_at, unregistered_at
                FROM devices;
            DROP TABLE devices;
            ALTER TABLE devices_v2 RENAME TO devices;
            CREATE INDEX devices_by_user ON devices (user_id, id);
            CREATE TABLE deliveries_v2 (
                id INTEGER PRIMARY KEY, push_id TEXT NOT NULL REFERENCES pushes (id), device_id TEXT NOT NULL,
                kind TEXT NOT NULL, address TEXT NOT NULL, environment TEXT, headers TEXT NOT NULL, body BLOB NOT NULL,
                expiration INTEGER, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL, lease_owner TEXT, lease_until INTEGER,
                apns_id TEXT, reason TEXT, accepted_at INTEGER NOT NULL, finished_at INTEGER);
            INSERT INTO deliveries_v2
                SELECT id, push_id, device_id, 'apns', token, environment, headers, body, expiration, status, attempts,
                    next_attempt_at, lease_owner, lease_until, apns_id, reason, accepted_at, finished_at
                FROM deliveries;
            DROP TABLE deliveries;
            ALTER TABLE deliveries_v2 RENAME TO deliveries;
            CREATE INDEX deliveries_due ON deliveries (kind, status, next_attempt_at);
            CREATE INDEX deliveries_by_push ON deliveries (push_id, id);
            """),
        // Retention: ended deliveries keep no body, and go once the retention time has passed;
        // instances record a heartbeat for the status page.
        SchemaMigration(
            3,
            """
            UPDATE deliveries SET finished_at = accepted_at WHERE status <> 'queued' AND finished_at IS NULL;
            UPDATE deliveries SET body = X'' WHERE status <> 'queued';
            CREATE INDEX deliveries_finished ON deliveries (finished_at) WHERE status <> 'queued';
            CREATE INDEX pushes_by_time ON pushes (accepted_at);
            CREATE TABLE instances (
                id TEXT PRIMARY KEY, version TEXT NOT NULL, started_at INTEGER NOT NULL, heartbeat_at INTEGER NOT NULL);
            """),
        // Idempotency, exact: a key used again with a different request is refused. Tokens get a
        // label, an expiry and their last use.
        SchemaMigration(
            4,
            """
            ALTER TABLE pushes ADD COLUMN request_hash BLOB;
            ALTER TABLE access_tokens ADD COLUMN label TEXT;
            ALTER TABLE access_tokens ADD COLUMN expires_at INTEGER;
            ALTER TABLE access_tokens ADD COLUMN last_used_at INTEGER;
            CREATE INDEX devices_unregistered ON devices (unregistered_at, id) WHERE unregistered_at IS NOT NULL;
            """),
        // Webhooks: an outbox of events, a row per event and endpoint, and the endpoints' failures.
        SchemaMigration(
            5,
            """
            CREATE TABLE webhook_events (
                id INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, endpoint TEXT NOT NULL, type TEXT NOT NULL,
                body TEXT NOT NULL, created_at INTEGER NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL, lease_owner TEXT, lease_until INTEGER, reason TEXT, finished_at INTEGER);
            CREATE INDEX webhook_events_queued ON webhook_events (endpoint, id) WHERE status = 'queued';
            CREATE INDEX webhook_events_finished ON webhook_events (finished_at) WHERE status <> 'queued';
            CREATE TABLE webhook_endpoints (
                name TEXT PRIMARY KEY, failures INTEGER NOT NULL DEFAULT 0, failing_since INTEGER, retry_at INTEGER,
                disabled_at INTEGER);
            """),
        // The relay: the Web Push endpoints it serves for APNs devices, kept by the hash of their id.
        SchemaMigration(
            6,
            """
            CREATE TABLE webpush_inboxes (
                id_hash TEXT PRIMARY KEY, id_prefix TEXT NOT NULL, device_id TEXT NOT NULL, vapid_key TEXT,
                created_at INTEGER NOT NULL, removed_at INTEGER);
            CREATE INDEX webpush_inboxes_by_device ON webpush_inboxes (device_id);
            """),
        // Statements repeated while the gateway runs find their rows through an index, whatever the
        // outbox's size: a worker's lease renewal (a full scan of `deliveries` held the writer for
        // 50–120 ms at 50,000 rows), and the sweep of webhook events queued past their retry window.
        SchemaMigration(
            7,
            """
            CREATE INDEX deliveries_by_owner ON deliveries (lease_owner) WHERE status = 'queued';
            CREATE INDEX webhook_events_stale ON webhook_events (created_at) WHERE status = 'queued';
            """),
        // Schema 8 changes PostgreSQL's outbox only (its deliveries' foreign key to their push,
        // whose check cost a trigger per delivery there); SQLite checks that key in process, and
        // keeps it. The number moves with PostgreSQL's, so that one schema number names both.
        SchemaMigration(8, "SELECT 1"),
        // Schema 9 keeps PostgreSQL's sealed bodies in their rows (its TOAST target); SQLite keeps a
        // row of that size in its page already.
        SchemaMigration(9, "SELECT 1"),
        // Apps: every row belongs to one app, those of a gateway that served one going to
        // `default`. A device's id, an idempotency key and a webhook endpoint's name are unique
        // within their app, not across apps: their keys become (key, app), the key first so that
        // every lookup by it still reads one index entry; a user's devices and the unregistered
        // ones, an endpoint's queued events and the due deliveries of a kind (claimed app by app,
        // so that one app's backlog never holds another's push) are indexed within their app, and
        // so are a device's queued deliveries (which a deletion ends: it read the whole table).
        // Retention is the app's, so what it deletes (ended deliveries and webhook events, empty
        // pushes, webhook events stale in the queue) is indexed within the app, and `apps` lists
        // every app that may have rows, with the retention it was last served with (NULL: the
        // gateway's) and when an instance last served it, and its Web Push, so that a sweep reaches
        // an app removed from the configuration too, or its Web Push deliveries once no instance
        // has `webpush` for it. SQLite changes a key only by making its table anew (foreign keys
        // off meanwhile, and checked before the commit). An access token's app may be NULL: an
        // operator's token, over every app.
        SchemaMigration(
            10,
            """
            ALTER TABLE access_tokens ADD COLUMN app TEXT DEFAULT 'default';
            CREATE TABLE devices_v10 (
                id TEXT NOT NULL, user_id TEXT NOT NULL, kind TEXT NOT NULL, token TEXT, topic TEXT,
                environment TEXT, public_key TEXT, endpoint TEXT, p256dh TEXT, auth TEXT,
                registered_at INTEGER NOT NULL, unregistered_at INTEGER, app TEXT NOT NULL DEFAULT 'default',
                PRIMARY KEY (id, app));
            INSERT INTO devices_v10 (id, user_id, kind, token, topic, environment, public_key, endpoint, p256dh, auth,
                    registered_at, unregistered_at)
                SELECT id, user_id, kind, token, topic, environment, public_key, endpoint, p256dh, auth,
                    registered_at, unregistered_at
                FROM devices;
            DROP TABLE devices;
            ALTER TABLE devices_v10 RENAME TO devices;
            CREATE INDEX devices_by_user ON devices (user_id, app, id);
            CREATE INDEX devices_unregistered ON devices (app, unregistered_at, id) WHERE unregistered_at IS NOT NULL;
            CREATE TABLE pushes_v10 (
                id TEXT PRIMARY KEY, idempotency_key TEXT, accepted_at INTEGER NOT NULL, request_hash BLOB,
                app TEXT NOT NULL DEFAULT 'default', UNIQUE (idempotency_key, app));
            INSERT INTO pushes_v10 (id, idempotency_key, accepted_at, request_hash)
                SELECT id, idempotency_key, accepted_at, request_hash FROM pushes;
            DROP TABLE pushes;
            ALTER TABLE pushes_v10 RENAME TO pushes;
            CREATE INDEX pushes_by_time ON pushes (app, accepted_at);
            ALTER TABLE deliveries ADD COLUMN app TEXT NOT NULL DEFAULT 'default';
            DROP INDEX deliveries_due;
            CREATE INDEX deliveries_due ON deliveries (kind, app, status, next_attempt_at);
            CREATE INDEX deliveries_queued_by_device ON deliveries (device_id, app) WHERE status = 'queued';
            DROP INDEX deliveries_finished;
            CREATE INDEX deliveries_finished ON deliveries (app, finished_at) WHERE status <> 'queued';
            ALTER TABLE webpush_inboxes ADD COLUMN app TEXT NOT NULL DEFAULT 'default';
            ALTER TABLE webhook_events ADD COLUMN app TEXT NOT NULL DEFAULT 'default';
            DROP INDEX webhook_events_queued;
            CREATE INDEX webhook_events_queued ON webhook_events (endpoint, app, id) WHERE status = 'queued';
            DROP INDEX webhook_events_finished;
            CREATE INDEX webhook_events_finished ON webhook_events (app, finished_at) WHERE status <> 'queued';
            DROP INDEX webhook_events_stale;
            CREATE INDEX webhook_events_stale ON webhook_events (app, created_at) WHERE status = 'queued';
            CREATE TABLE webhook_endpoints_v10 (
                name TEXT NOT NULL, failures INTEGER NOT NULL DEFAULT 0, failing_since INTEGER, retry_at INTEGER,
                disabled_at INTEGER, app TEXT NOT NULL DEFAULT 'default', PRIMARY KEY (name, app));
            INSERT INTO webhook_endpoints_v10 (name, failures, failing_since, retry_at, disabled_at)
                SELECT name, failures, failing_since, retry_at, disabled_at FROM webhook_endpoints;
            DROP TABLE webhook_endpoints;
            ALTER TABLE webhook_endpoints_v10 RENAME TO webhook_endpoints;
            CREATE TABLE apps (
                name TEXT PRIMARY KEY, retention_hours INTEGER, served_at INTEGER NOT NULL, webpush_served_at INTEGER);
            INSERT INTO apps (name, served_at, webpush_served_at)
                SELECT 'default', at_ms, at_ms FROM (SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) AS at_ms)
                WHERE EXISTS (SELECT 1 FROM devices) OR EXISTS (SELECT 1 FROM pushes)
                    OR EXISTS (SELECT 1 FROM webhook_events);
            """),
        // Content kept for devices to fetch, when it does not fit an APNs payload: sealed bytes,
        // the SHA-256 of the capability that fetches them, and the wrong capabilities counted. The
        // sweep deletes an app's objects once expired, or stored before its retention; a device's
        // newest objects are found through their own index, the oldest beyond a bound deleted.
        SchemaMigration(
            11,
            """
            CREATE TABLE fetch_objects (
                id TEXT PRIMARY KEY, app TEXT NOT NULL, device_id TEXT NOT NULL, capability_hash BLOB NOT NULL,
                body BLOB NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, fetched_at INTEGER,
                refusals INTEGER NOT NULL DEFAULT 0);
            CREATE INDEX fetch_objects_by_expiry ON fetch_objects (app, expires_at);
            CREATE INDEX fetch_objects_by_age ON fetch_objects (app, created_at);
            CREATE INDEX fetch_objects_by_device ON fetch_objects (app, device_id, created_at);
            """),
        // Content kept to fetch, bounded for each source apart: the app's own pushes ('app'), and
        // each relay endpoint (its id's hash), so that one sender's flood evicts only its own.
        SchemaMigration(
            12,
            """
            ALTER TABLE fetch_objects ADD COLUMN source TEXT NOT NULL DEFAULT 'app';
            DROP INDEX fetch_objects_by_device;
            CREATE INDEX fetch_objects_by_source ON fetch_objects (app, device_id, source, created_at);
            """),
        // Receipts: a delivery that carries them has an id of its own in receipt URLs (unique, found
        // through its own index), the SHA-256 of its display and failure capabilities, and what the
        // first receipt (or a displayed one after a degraded one) said the device showed.
        SchemaMigration(
            13,
            """
            ALTER TABLE deliveries ADD COLUMN receipt_id TEXT;
            ALTER TABLE deliveries ADD COLUMN display_hash BLOB;
            ALTER TABLE deliveries ADD COLUMN failure_hash BLOB;
            ALTER TABLE deliveries ADD COLUMN display_outcome TEXT;
            ALTER TABLE deliveries ADD COLUMN display_reason TEXT;
            ALTER TABLE deliveries ADD COLUMN display_at INTEGER;
            CREATE UNIQUE INDEX deliveries_by_receipt ON deliveries (receipt_id) WHERE receipt_id IS NOT NULL;
            """),
    ]
}
