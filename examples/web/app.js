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
  const subscription = await (await navigator.serviceWorker.ready).pushManager.getSubscription();
  say(subscription ? "Notifications are on." : "Notifications are off.");
  const report = (error) => say(`${error.message || error}`);
  document.getElementById("subscribe").addEventListener("click", () => subscribe().catch(report));
  document.getElementById("unsubscribe").addEventListener("click", () => unsubscribe().catch(report));
}

start().catch((error) => say(`${error.message || error}`));
