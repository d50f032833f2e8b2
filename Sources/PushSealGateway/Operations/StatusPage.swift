/// The status page (`GET /status`): one HTML file and its script (`GET /status.js`), which reads
/// `/status.json` every 5 seconds and shows it; no build step, nothing loaded from elsewhere.
/// Every value goes in as text (`textContent`), never as markup.
enum StatusPage {
    /// The page's headers: no caching, no sniffing, and a policy that runs only the gateway's own
    /// script file (no inline script: an injected one would not run) and fetches from its origin only.
    static let headers: [(name: String, value: String)] = [
        ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; "
                + "frame-ancestors 'none'"
        ),
    ]

    /// The script's headers.
    static let scriptHeaders: [(name: String, value: String)] = [
        ("Content-Type", "text/javascript; charset=utf-8"), ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
    ]

    /// The page.
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>pushseal-gateway status</title>
        <style>
          body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #1d1d1f; }
          h1 { font-size: 1.4em; margin-bottom: 0.2em; }
          .meta { color: #6e6e73; margin-bottom: 1.5em; }
          .cards { display: flex; gap: 1em; flex-wrap: wrap; margin-bottom: 1.5em; }
          .card { border: 1px solid #d2d2d7; border-radius: 8px; padding: 0.8em 1.2em; min-width: 10em; }
          .card .figure { font-size: 1.8em; font-weight: 600; }
          .card .label { color: #6e6e73; }
          table { border-collapse: collapse; margin-bottom: 1.5em; }
          th, td { text-align: left; padding: 0.3em 1em 0.3em 0; border-bottom: 1px solid #e5e5ea; }
          td.count, th.count { text-align: right; }
          #error { color: #c9302c; }
          #attention { list-style: none; padding: 0; margin: 0 0 1.5em; }
          #attention li { border-radius: 8px; padding: 0.6em 1em; margin-bottom: 0.4em; font-weight: 600; }
          #attention li.critical { background: #fde8e7; color: #a1140c; border: 1px solid #f2b8b5; }
          #attention li.warning { background: #fff4d6; color: #7a5200; border: 1px solid #f0d58c; }
          #attention li.ok { background: #e8f6ec; color: #1d6b34; border: 1px solid #b5dfc1; font-weight: 400; }
          tr.failing td, tr.stale td, tr.disabled td { color: #a1140c; }
          tr.retrying td, tr.unserved td, tr.degrading td { color: #7a5200; }
        </style>
        </head>
        <body>
        <h1>pushseal-gateway</h1>
        <div class="meta">instance <span id="instance">…</span>, version <span id="version">…</span>,
          <span id="draining"></span> updated <span id="generated">…</span> <span id="error"></span></div>
        <ul id="attention"></ul>
        <div class="cards">
          <div class="card"><div class="figure" id="queue-depth">…</div><div class="label">queued deliveries</div></div>
          <div class="card"><div class="figure" id="queue-oldest">…</div><div class="label">oldest queued, seconds</div></div>
          <div class="card"><div class="figure" id="devices-active">…</div><div class="label">active devices</div></div>
          <div class="card"><div class="figure" id="devices-unregistered">…</div><div class="label">unregistered devices</div></div>
          <div class="card"><div class="figure" id="token-age">…</div><div class="label">provider token age, seconds</div></div>
        </div>
        <h2>Deliveries ended in the last hour</h2>
        <table><thead><tr><th>status</th><th>reason</th><th class="count">count</th></tr></thead>
          <tbody id="outcomes"></tbody></table>
        <h2>Deliveries waiting to be tried again</h2>
        <table><thead><tr><th>last attempt's reason</th><th class="count">deliveries</th><th class="count">next attempt in, s</th></tr></thead>
          <tbody id="retrying"></tbody></table>
        <h2>Instances</h2>
        <table><thead><tr><th>instance</th><th>version</th><th>started</th><th class="count">last heartbeat, s ago</th></tr></thead>
          <tbody id="instances"></tbody></table>
        <h2>Webhook endpoints</h2>
        <table><thead><tr><th>endpoint</th><th>state</th><th class="count">events waiting</th></tr></thead>
          <tbody id="webhooks"></tbody></table>
        <h2>Apps</h2>
        <table><thead><tr><th>app</th><th>here</th><th class="count">queued</th><th class="count">oldest queued, s</th>
          <th class="count">active devices</th><th class="count">unregistered devices</th></tr></thead>
          <tbody id="apps"></tbody></table>
        <h2>What devices showed of the last hour's deliveries (apps with receipts)</h2>
        <table><thead><tr><th>app</th><th class="count">sent</th><th class="count">displayed</th>
          <th class="count">degraded</th><th class="count">not reported</th><th class="count">confirmed</th>
          <th>top degrade reasons</th></tr></thead>
          <tbody id="receipts"></tbody></table>
        <script src="status.js"></script>
        </body>
        </html>

        """

    /// The page's script.
    static let script = """
        "use strict";
        function text(id, value) { document.getElementById(id).textContent = String(value); }
        function rows(id, records, cells, rowClass) {
          const body = document.getElementById(id);
          body.replaceChildren(...records.map(record => {
            const row = document.createElement("tr");
            if (rowClass) { row.className = rowClass(record); }
            cells(record).forEach(([value, numeric]) => {
              const cell = document.createElement("td");
              cell.textContent = String(value);
              if (numeric) { cell.className = "count"; }
              row.append(cell);
            });
            return row;
          }));
        }
        async function refresh() {
          try {
            const response = await fetch("status.json", { cache: "no-store" });
            if (!response.ok) { throw new Error("HTTP " + response.status); }
            const status = await response.json();
            text("instance", status.instance);
            text("version", status.version);
            text("draining", status.draining ? "draining," : "");
            text("generated", status.generated_at);
            text("queue-depth", status.queue.depth);
            text("queue-oldest", status.queue.oldest_seconds);
            text("devices-active", status.devices.active);
            text("devices-unregistered", status.devices.unregistered);
            text("token-age", status.provider_token_age_seconds === null ? "none yet" : status.provider_token_age_seconds);
            const notes = status.attention.length ? status.attention
              : [{ level: "ok", message: "Nothing needs attention." }];
            document.getElementById("attention").replaceChildren(...notes.map(note => {
              const item = document.createElement("li");
              item.className = note.level;
              item.textContent = note.message;
              return item;
            }));
            rows("outcomes", status.last_hour, o => [[o.status], [o.reason || "—"], [o.count, true]],
              o => o.status === "failed" ? "failing" : "");
            rows("retrying", status.retrying, r => [[r.reason], [r.count, true], [r.next_attempt_in_seconds, true]],
              r => "retrying");
            rows("instances", status.instances,
              i => [[i.id], [i.version], [i.started_at], [i.heartbeat_age_seconds + (i.state === "stale" ? " (stale)" : ""), true]],
              i => i.state);
            rows("webhooks", status.webhooks, w => [[w.endpoint], [w.disabled ? "disabled" : "enabled"], [w.queued, true]],
              w => w.disabled ? "disabled" : "");
            rows("apps", status.apps,
              a => [[a.app], [a.served ? "served" : "not served"], [a.queue.depth, true], [a.queue.oldest_seconds, true],
                [a.devices.active, true], [a.devices.unregistered, true]],
              a => a.served ? "" : "unserved");
            rows("receipts", status.apps.filter(a => a.receipts),
              a => [[a.app], [a.receipts.sent, true], [a.receipts.displayed, true], [a.receipts.degraded, true],
                [a.receipts.unreported, true],
                [a.receipts.confirmed_share === null ? "—" : (a.receipts.confirmed_share * 100).toFixed(1) + " %", true],
                [a.receipts.top_reasons.map(r => r.reason + " " + r.count).join(", ") || "—"]],
              a => a.receipts.degraded > 0 ? "degrading" : "");
            text("error", "");
            document.body.dataset.loaded = "yes";
          } catch (error) {
            text("error", "could not read status.json: " + error.message);
          }
        }
        refresh();
        setInterval(refresh, 5000);
        """
}
