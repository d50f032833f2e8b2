/// PostgreSQL's schema, one numbered migration at a time: a database at schema N has run 1 to N,
/// each in a transaction of its own that records N in `pushseal_schema`. A migration is never
/// changed once released; the next one is added at the end, and GatewaySchema.version moves with it.
package enum PostgresMigrations {
    /// Every migration, numbered from 1 in order.
    package static let all: [SchemaMigration] = [
        SchemaMigration(
            1,
            """
            CREATE TABLE access_tokens (
                id TEXT PRIMARY KEY, secret_hash BYTEA NOT NULL, scopes TEXT NOT NULL,
                created_at BIGINT NOT NULL, revoked_at BIGINT);
            CREATE TABLE devices (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL, token TEXT NOT NULL, topic TEXT NOT NULL,
                environment TEXT NOT NULL, public_key TEXT NOT NULL,
                registered_at BIGINT NOT NULL, unregistered_at BIGINT);
            CREATE INDEX devices_by_user ON devices (user_id, id);
            CREATE TABLE pushes (
                id TEXT PRIMARY KEY, idempotency_key TEXT UNIQUE, accepted_at BIGINT NOT NULL);
            CREATE TABLE deliveries (
                id BIGSERIAL PRIMARY KEY, push_id TEXT NOT NULL REFERENCES pushes (id), device_id TEXT NOT NULL,
                token TEXT NOT NULL, environment TEXT NOT NULL, headers TEXT NOT NULL, body BYTEA NOT NULL,
                expiration BIGINT, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at BIGINT NOT NULL, lease_owner TEXT, lease_until BIGINT,
                apns_id TEXT, reason TEXT, accepted_at BIGINT NOT NULL, finished_at BIGINT);
            CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'queued';
            CREATE INDEX deliveries_by_push ON deliveries (push_id, id);
            CREATE INDEX deliveries_by_owner ON deliveries (lease_owner) WHERE status = 'queued';
            """),
        // Web Push: a device is an APNs device or a subscription, and a delivery goes to a token
        // or an endpoint (its `address`); each kind is claimed by workers of its own.
        SchemaMigration(
            2,
            """
            ALTER TABLE devices ADD COLUMN kind TEXT NOT NULL DEFAULT 'apns', ADD COLUMN endpoint TEXT,
                ADD COLUMN p256dh TEXT, ADD COLUMN auth TEXT, ALTER COLUMN token DROP NOT NULL,
                ALTER COLUMN topic DROP NOT NULL, ALTER COLUMN environment DROP NOT NULL,
                ALTER COLUMN public_key DROP NOT NULL;
            ALTER TABLE deliveries RENAME COLUMN token TO address;
            ALTER TABLE deliveries ADD COLUMN kind TEXT NOT NULL DEFAULT 'apns',
                ALTER COLUMN environment DROP NOT NULL;
            DROP INDEX deliveries_due;
            CREATE INDEX deliveries_due ON deliveries (kind, next_attempt_at, id) WHERE status = 'queued';
            """),
        // Retention: ended deliveries keep no body, and go once the retention time has
        // passed; instances record a heartbeat for the status page.
        SchemaMigration(
            3,
            """
            UPDATE deliveries SET finished_at = accepted_at WHERE status <> 'queued' AND finished_at IS NULL;
            UPDATE deliveries SET body = ''::bytea WHERE status <> 'queued';
            CREATE INDEX deliveries_finished ON deliveries (finished_at) WHERE status <> 'queued';
            CREATE INDEX pushes_by_time ON pushes (accepted_at);
            CREATE TABLE instances (
                id TEXT PRIMARY KEY, version TEXT NOT NULL, started_at BIGINT NOT NULL, heartbeat_at BIGINT NOT NULL);
            """),
        // Idempotency, exact: a key used again with a different request is refused. Tokens get
        // a label, an expiry and their last use.
        SchemaMigration(
            4,
            """
            ALTER TABLE pushes ADD COLUMN request_hash BYTEA;
            ALTER TABLE access_tokens ADD COLUMN label TEXT, ADD COLUMN expires_at BIGINT, ADD COLUMN last_used_at BIGINT;
            CREATE INDEX devices_unregistered ON devices (unregistered_at, id) WHERE unregistered_at IS NOT NULL;
            """),
        // Webhooks: an outbox of events, a row per event and endpoint, and the endpoints'
        // failures.
        SchemaMigration(
            5,
            """
            CREATE TABLE webhook_events (
                id BIGSERIAL PRIMARY KEY, event_id TEXT NOT NULL, endpoint TEXT NOT NULL, type TEXT NOT NULL,
                body TEXT NOT NULL, created_at BIGINT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at BIGINT NOT NULL, lease_owner TEXT, lease_until BIGINT, reason TEXT, finished_at BIGINT);
            CREATE INDEX webhook_events_queued ON webhook_events (endpoint, id) WHERE status = 'queued';
            CREATE INDEX webhook_events_finished ON webhook_events (finished_at) WHERE status <> 'queued';
            CREATE TABLE webhook_endpoints (
                name TEXT PRIMARY KEY, failures INTEGER NOT NULL DEFAULT 0, failing_since BIGINT, retry_at BIGINT,
                disabled_at BIGINT);
            """),
        // The relay: the Web Push endpoints it serves for APNs devices, kept by the hash of
        // their id.
        SchemaMigration(
            6,
            """
            CREATE TABLE webpush_inboxes (
                id_hash TEXT PRIMARY KEY, id_prefix TEXT NOT NULL, device_id TEXT NOT NULL, vapid_key TEXT,
                created_at BIGINT NOT NULL, removed_at BIGINT);
            CREATE INDEX webpush_inboxes_by_device ON webpush_inboxes (device_id);
            """),
        // The sweep of webhook events queued past their retry window finds them through an
        // index (`deliveries_by_owner`, which SQLite's schema 7 adds, is here since schema 1).
        SchemaMigration(
            7,
            """
            CREATE INDEX webhook_events_stale ON webhook_events (created_at) WHERE status = 'queued';
            """),
        // A delivery's push is no longer checked by a foreign key. Its check ran once per delivery
        // stored (a lookup and a row lock on the push, by a trigger), while the push's statement
        // stores the push and its deliveries together, and the retention sweep deletes only a push
        // none of whose deliveries is left: without it, PostgreSQL stores 17-20 % more pushes a
        // second on the same processor. SQLite checks the same key in process for next to nothing,
        // and keeps it.
        SchemaMigration(
            8,
            """
            ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_push_id_fkey;
            """),
        // A queued delivery's sealed body (some 2 KB, incompressible) stays in its row. At the
        // default target (a quarter of a page), every body was tried for compression and then
        // stored as two chunks in the TOAST table, with their index entries, and deleting the body
        // when the delivery ended deleted them again: some 45 % of the push's statement and half
        // or more of recording outcomes. A claim's update now copies the body with its row, and
        // PostgreSQL still spends some 18 % less CPU a one-device push (performance.md). The
        // target is the largest a page allows (8,160 bytes at the usual 8 KB), so only a row that
        // could not fit a page is moved out.
        SchemaMigration(
            9,
            """
            DO $$ BEGIN
                EXECUTE format('ALTER TABLE deliveries SET (toast_tuple_target = %s)',
                    current_setting('block_size')::integer - 32);
            END $$;
            """),
        // Apps, as SQLite's schema 10: every row belongs to one app (`default` for those there), and
        // a device's id, an idempotency key and a webhook endpoint's name are unique within their
        // app, the key first in each index; the due deliveries of a kind are indexed within their
        // app (claimed app by app), and so are a device's queued deliveries (a deletion ends them)
        // and what the retention sweep, which is the app's, deletes; `apps` lists every app that
        // may have rows, with its retention. A column with a constant default is added without
        // rewriting its table.
        SchemaMigration(
            10,
            """
            ALTER TABLE access_tokens ADD COLUMN app TEXT DEFAULT 'default';
            ALTER TABLE devices ADD COLUMN app TEXT NOT NULL DEFAULT 'default';
            ALTER TABLE devices DROP CONSTRAINT devices_pkey, ADD PRIMARY KEY (id, app);
            DROP INDEX devices_by_user;
            CREATE INDEX devices_by_user ON devices (user_id, app, id);
            DROP INDEX devices_unregistered;
            CREATE INDEX devices_unregistered ON devices (app, unregistered_at, id) WHERE unregistered_at IS NOT NULL;
            ALTER TABLE pushes ADD COLUMN app TEXT NOT NULL DEFAULT 'default';
            ALTER TABLE pushes DROP CONSTRAINT pushes_idempotency_key_key, ADD UNIQUE (idempotency_key, app);
            ALTER TABLE deliveries ADD COLUMN app TEXT NOT NULL DEFAULT 'default';
            DROP INDEX deliveries_due;
            CREATE INDEX deliveries_due ON deliveries (kind, app, next_attempt_at, id) WHERE status = 'queued';
            CREATE INDEX deliveries_queued_by_device ON deliveries (device_id, app) WHERE status = 'queued';
            DROP INDEX deliveries_finished;
            CREATE INDEX deliveries_finished ON deliveries (app, finished_at) WHERE status <> 'queued';
            DROP INDEX pushes_by_time;
            CREATE INDEX pushes_by_time ON pushes (app, accepted_at);
            ALTER TABLE webpush_inboxes ADD COLUMN app TEXT NOT NULL DEFAULT 'default';
            ALTER TABLE webhook_events ADD COLUMN app TEXT NOT NULL DEFAULT 'default';
            DROP INDEX webhook_events_queued;
            CREATE INDEX webhook_events_queued ON webhook_events (endpoint, app, id) WHERE status = 'queued';
            DROP INDEX webhook_events_finished;
            CREATE INDEX webhook_events_finished ON webhook_events (app, finished_at) WHERE status <> 'queued';
            DROP INDEX webhook_events_stale;
            CREATE INDEX webhook_events_stale ON webhook_events (app, created_at) WHERE status = 'queued';
            ALTER TABLE webhook_endpoints ADD COLUMN app TEXT NOT NULL DEFAULT 'default';
            ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_pkey, ADD PRIMARY KEY (name, app);
            CREATE TABLE apps (
                name TEXT PRIMARY KEY, retention_hours INTEGER, served_at BIGINT NOT NULL, webpush_served_at BIGINT);
            INSERT INTO apps (name, served_at, webpush_served_at)
                SELECT 'default', at_ms, at_ms FROM (SELECT (extract(epoch FROM now()) * 1000)::bigint AS at_ms) AS clock
                WHERE EXISTS (SELECT 1 FROM devices) OR EXISTS (SELECT 1 FROM pushes)
                    OR EXISTS (SELECT 1 FROM webhook_events);
            """),
        // Content kept for devices to fetch, as SQLite's schema 11.
        SchemaMigration(
            11,
            """
            CREATE TABLE fetch_objects (
                id TEXT PRIMARY KEY, app TEXT NOT NULL, device_id TEXT NOT NULL, capability_hash BYTEA NOT NULL,
                body BYTEA NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, fetched_at BIGINT,
                refusals INTEGER NOT NULL DEFAULT 0);
            CREATE INDEX fetch_objects_by_expiry ON fetch_objects (app, expires_at);
            CREATE INDEX fetch_objects_by_age ON fetch_objects (app, created_at);
            CREATE INDEX fetch_objects_by_device ON fetch_objects (app, device_id, created_at);
            """),
        // Content kept to fetch, bounded for each source apart, as SQLite's schema 12.
        SchemaMigration(
            12,
            """
            ALTER TABLE fetch_objects ADD COLUMN source TEXT NOT NULL DEFAULT 'app';
            DROP INDEX fetch_objects_by_device;
            CREATE INDEX fetch_objects_by_source ON fetch_objects (app, device_id, source, created_at);
            """),
        // Receipts, as SQLite's schema 13.
        SchemaMigration(
            13,
            """
            ALTER TABLE deliveries ADD COLUMN receipt_id TEXT;
            ALTER TABLE deliveries ADD COLUMN display_hash BYTEA;
            ALTER TABLE deliveries ADD COLUMN failure_hash BYTEA;
            ALTER TABLE deliveries ADD COLUMN display_outcome TEXT;
            ALTER TABLE deliveries ADD COLUMN display_reason TEXT;
            ALTER TABLE deliveries ADD COLUMN display_at BIGINT;
            CREATE UNIQUE INDEX deliveries_by_receipt ON deliveries (receipt_id) WHERE receipt_id IS NOT NULL;
            """),
    ]
}
