// The service worker of PushSeal's web example (docs/web.md). It shows what pushseal-gateway
// sends, opens the notification's page on a click, and registers a new subscription when the
// browser replaces the old one. Safari 18.4 and later shows the gateway's Declarative Web Push
// messages without it; every other browser hands each message to the `push` listener below.

importScripts("/registration.js");

// The gateway's content: {"web_push": 8030, "notification": {...}} from 1.4.0, and 1.3's
// {"title", "body", "tag", "data"} for a gateway configured with "service-worker-1.3".
function notificationOf(message) {
  if (message && message.web_push === 8030 && message.notification) {
    return message.notification;
  }
  return {
    title: message.title || self.location.hostname,
    body: message.body,
    tag: message.tag,
    navigate: (message.data && message.data.url) || "/",
    data: message.data,
  };
}

// Receipts (gateway-v1.md, "Receipts"): when the gateway's app has `receipts`, the message
// carries {"url", "capability"} under `pushseal_receipt`, beside its content. Once the
// notification is shown, the worker tells the gateway so. A receipt is best effort: the
// notification stands whatever the answer.
function postReceipt(receipt) {
  if (!receipt || typeof receipt.url !== "string" || !receipt.url.startsWith("https://")) {
    return Promise.resolve();
  }
  return fetch(receipt.url, {
    method: "POST",
    headers: { Authorization: "Bearer " + receipt.capability, "Content-Type": "application/json" },
    body: JSON.stringify({ outcome: "displayed" }),
  }).catch(() => {});
}

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { title: self.location.hostname, body: event.data.text() };
  }
  const notification = notificationOf(message);
  const shown = self.registration.showNotification(notification.title, {
    body: notification.body,
    tag: notification.tag,
    icon: notification.icon,
    lang: notification.lang,
    dir: notification.dir,
    silent: notification.silent,
    // The whole notification: the click handler reads `navigate`, the page `data` and `app_badge`.
    data: notification,
  });
  const badge =
    typeof notification.app_badge === "number" && "setAppBadge" in self.navigator
      ? self.navigator.setAppBadge(notification.app_badge).catch(() => {})
      : Promise.resolve();
  event.waitUntil(Promise.all([shown.then(() => postReceipt(message.pushseal_receipt)), badge]));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(event.notification.data.navigate || "/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((window) => window.url === target);
      return open ? open.focus() : self.clients.openWindow(target);
    }),
  );
});

// The push service replaced the subscription (it expired, or the browser renewed its keys):
// subscribe again with the gateway's current applicationServerKey (not the old subscription's,
// which a rotation of the gateway's VAPID key leaves stale), and register the new one under the
// same device id, which replaces the old one at the gateway.
self.addEventListener("pushsubscriptionchange", (event) => {
  event.waitUntil(
    (async () => {
      const subscription =
        event.newSubscription ||
        (await self.registration.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: await pushSealApplicationServerKey(),
        }));
      await pushSealRegister(subscription);
    })(),
  );
});
