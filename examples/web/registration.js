// What the page (app.js) and the service worker (sw.js) of PushSeal's web example share: this
// browser's device id, the applicationServerKey, and the registration of a subscription with the
// backend (backend.py), which forwards it to pushseal-gateway with its token. A classic script:
// the page loads it with <script>, the service worker with importScripts().

// A random id for this browser, made once: the gateway's device_id. Kept in Cache Storage, which
// the page and the service worker both reach, so that a replaced subscription keeps its id.
async function pushSealDeviceID() {
  const cache = await caches.open("pushseal");
  const kept = await cache.match("/pushseal/device-id");
  if (kept) return kept.text();
  const id = crypto.randomUUID();
  await cache.put("/pushseal/device-id", new Response(id));
  return id;
}

// The VAPID public key, from the backend (which asks the gateway: GET /v1/webpush/vapid).
async function pushSealApplicationServerKey() {
  const answer = await fetch("/pushseal/vapid");
  if (!answer.ok) throw new Error(`no applicationServerKey: HTTP ${answer.status}`);
  return (await answer.json()).application_server_key;
}

// Whether `subscription` was made with the gateway's current applicationServerKey. A browser
// that does not say which key it used is taken at its word.
async function pushSealKeyIsCurrent(subscription) {
  const used = subscription.options && subscription.options.applicationServerKey;
  if (!used) return true;
  const text = btoa(String.fromCharCode(...new Uint8Array(used)));
  const encoded = text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return encoded === (await pushSealApplicationServerKey());
}

// Sends subscription.toJSON() to the backend, under this browser's device id.
async function pushSealRegister(subscription) {
  const answer = await fetch(`/pushseal/subscriptions/${await pushSealDeviceID()}`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(subscription.toJSON()),
  });
  if (!answer.ok) throw new Error(`the backend refused the subscription: HTTP ${answer.status}`);
}

// Removes this browser's registration from the backend.
async function pushSealUnregister() {
  await fetch(`/pushseal/subscriptions/${await pushSealDeviceID()}`, { method: "DELETE" });
}
