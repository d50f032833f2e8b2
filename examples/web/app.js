// The page's half of PushSeal's web example (docs/web.md): subscribe, register the subscription
// with the backend, unsubscribe. The backend (backend.py) holds the gateway's token; the page
// never sees it. registration.js, loaded before it, gives the pushSeal… functions.

const status = document.getElementById("status");
const say = (text) => {
  status.textContent = text;
};

async function subscribe() {
  const registration = await navigator.serviceWorker.ready;
  if ((await Notification.requestPermission()) !== "granted") {
    say("Notifications are blocked for this site.");
    return;
  }
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true, // every push shows a notification: browsers require it
    applicationServerKey: await pushSealApplicationServerKey(),
  });
  await pushSealRegister(subscription);
  say("Notifications are on.");
}

// On every visit: a subscription made with another VAPID key than the gateway's (the operator
// rotated it) gets nothing, since push services refuse what the gateway now signs for it; so the
// page subscribes anew with the current key, and registers that subscription under the same
// device id, which replaces the old one at the gateway.
async function refreshSubscription() {
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription();
  if (!subscription) {
    say("Notifications are off.");
    return;
  }
  if (Notification.permission === "granted" && !(await pushSealKeyIsCurrent(subscription))) {
    await subscription.unsubscribe();
    await subscribe();
    return;
  }
  say("Notifications are on.");
}

async function unsubscribe() {
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription();
  if (subscription) await subscription.unsubscribe();
  await pushSealUnregister();
  say("Notifications are off.");
}

async function start() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
    say("This browser cannot receive push notifications.");
    return;
  }
  await navigator.serviceWorker.register("/sw.js");
  await refreshSubscription();
  const report = (error) => say(`${error.message || error}`);
  document.getElementById("subscribe").addEventListener("click", () => subscribe().catch(report));
  document.getElementById("unsubscribe").addEventListener("click", () => unsubscribe().catch(report));
}

start().catch((error) => say(`${error.message || error}`));
