"""Runs PushSeal's web example (examples/web) in headless Chromium, against a running
pushseal-gateway, and prints one JSON object of what the browser did, for
`WebExampleBrowserTests` to check. Chromium is driven through the DevTools protocol over a pipe
(`--remote-debugging-pipe`: JSON messages ended by NUL on descriptors 3 and 4), with the standard
library alone; `cryptography` only hashes FRONT.pem's key.

    GATEWAY=http://127.0.0.1:PORT TOKEN=psg_… python web_example_browser.py \\
        --subscription SUBSCRIPTION.json --push-log PUSH-SERVICE-LOG.jsonl [--user u1] \\
        [--rotated-subscription ROTATED.json] [--trust-certificate FRONT.pem]

1. It starts examples/web/backend.py (the page, the service worker, and the three calls to the
   gateway), opens the page, and grants the notification permission through the protocol.
2. It tries the page's `PushManager.subscribe()`: in headless Chromium it never completes (its
   push service is Google's, which this machine does not reach), so the subscription the page
   registers, through its own `pushSealRegister`, is SUBSCRIPTION.json (made by
   `pushseal webpush subscribe` for the mock push service).
3. It pushes to the user through the gateway, waits until the mock push service has opened the
   gateway's RFC 8291 message with the subscription's keys (its log's `content`), and delivers
   that content to the service worker (`ServiceWorker.deliverPushMessage`), as the browser's
   push service client would once it decrypted the message.
4. It reads the notification the service worker showed (`registration.getNotifications()`).
   When the gateway's app has receipts, the content carries a display ticket whose URL is the
   gateway's HTTPS front (FRONT.pem, which Chromium is told to trust): the worker posts the
   receipt across origins, and the driver reads the delivery's `display` back from the gateway.
5. With ROTATED.json, it plays a visit after the gateway's VAPID key changed: `PushManager`'s
   `getSubscription` answers a subscription of the current key, then of another key, and
   `subscribe` answers ROTATED.json, each recording how it was called; the page's
   `refreshSubscription()` must keep the first and replace the second. Then it unsubscribes
   through the page. (1.3's shape of content is read by the same worker's
   `notificationOf`, which `WebExampleBrowserTests` runs under node.)
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "web")


class DevTools:
    """A headless Chromium and the DevTools protocol over its pipe."""

    def __init__(self, profile: str, trusted_certificate: str | None = None) -> None:
        commands_read, commands_write = os.pipe()
        # A certificate of the tests' own (the gateway's HTTPS front, where the service worker
        # posts its receipt) is trusted by its key alone, as Chromium allows with a profile.
        trust = [f"--ignore-certificate-errors-spki-list={spki_hash(trusted_certificate)}"] if trusted_certificate else []
        events_read, events_write = os.pipe()

        def descriptors() -> None:
            os.dup2(commands_read, 3)
            os.dup2(events_write, 4)

        self.process = subprocess.Popen(
            ["chromium", "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", f"--user-data-dir={profile}", *trust, "about:blank"],
            pass_fds=(3, 4), preexec_fn=descriptors, start_new_session=True, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(profile, "chromium.log"), "w"),
        )
        os.close(commands_read)
        os.close(events_write)
        self.commands = os.fdopen(commands_write, "wb", buffering=0)
        self.messages = os.fdopen(events_read, "rb", buffering=0)
        self.pending = b""
        self.last_id = 0
        self.events: list[dict] = []
        self.session: str | None = None

    def read(self) -> dict:
        while b"\0" not in self.pending:
            chunk = self.messages.read(65536)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self.pending += chunk
        message, self.pending = self.pending.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, in_page: bool = True, **params) -> dict:
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params}
        if in_page and self.session:
            message["sessionId"] = self.session
        self.commands.write(json.dumps(message).encode() + b"\0")
        while True:
            answer = self.read()
            if answer.get("id") == self.last_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error'].get('message')}")
                return answer.get("result", {})
            self.events.append(answer)

    def open(self, url: str) -> None:
        target = self.call("Target.createTarget", in_page=False, url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", in_page=False, targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "ServiceWorker"):
            self.call(f"{domain}.enable")
        self.call("Browser.grantPermissions", in_page=False, permissions=["notifications"], origin=url.rstrip("/"))
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str):
        """The value of an expression in the page (a promise is awaited); an exception is raised."""
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise RuntimeError(details.get("exception", {}).get("description") or details.get("text"))
        return result["result"].get("value")

    def wait_for(self, expression: str, seconds: float = 60):
        """Evaluates `expression` until it is truthy; its value."""
        deadline = time.monotonic() + seconds
        while True:
            value = self.evaluate(expression)
            if value or time.monotonic() > deadline:
                return value
            time.sleep(0.1)

    def registration_id(self) -> str:
        for event in reversed(self.events):
            if event.get("method") == "ServiceWorker.workerRegistrationUpdated":
                for registration in event["params"]["registrations"]:
                    if not registration["isDeleted"]:
                        return registration["registrationId"]
        raise RuntimeError("no service worker registration was reported")

    def close(self) -> None:
        """Ends Chromium and every process it started (its session): a renderer left running
        kept writing into the profile while the directory was removed."""
        try:
            os.killpg(self.process.pid, 9)
        except ProcessLookupError:
            pass
        self.process.wait()


def spki_hash(certificate: str) -> str:
    """The base64 SHA-256 of the certificate's public key (SubjectPublicKeyInfo), as
    --ignore-certificate-errors-spki-list takes it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization

    key = x509.load_pem_x509_certificate(open(certificate, "rb").read()).public_key()
    digest = hashes.Hash(hashes.SHA256())
    digest.update(key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo))
    return base64.b64encode(digest.finalize()).decode()


def gateway(method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        os.environ["GATEWAY"] + path, method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {os.environ['TOKEN']}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return response.status, json.loads(text) if text else {}
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def delivered_content(log: str, endpoint_path: str, seconds: float = 60) -> str:
    """The content the mock push service opened for `endpoint_path`, once it has."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.path.exists(log):
            for line in open(log, encoding="utf-8"):
                record = json.loads(line)
                if record.get("path") == endpoint_path and record.get("status") == 201 and record.get("content"):
                    content = record["content"]
                    return base64.urlsafe_b64decode(content + "=" * (-len(content) % 4)).decode()
        time.sleep(0.1)
    raise RuntimeError(f"the push service received nothing for {endpoint_path}")


NOTIFICATIONS = """navigator.serviceWorker.ready.then(r => r.getNotifications()).then(shown => shown.map(n => ({
    title: n.title, body: n.body, tag: n.tag, lang: n.lang, dir: n.dir, icon: n.icon, silent: n.silent,
    navigate: n.data && n.data.navigate, app_badge: n.data && n.data.app_badge, data: n.data && n.data.data})))"""


# A visit with a subscription of the gateway's current key ("current") or of another one
# ("stale"): PushManager's getSubscription and subscribe stand in for the push service's, and
# record what the page did with them.
ROTATION = """(async () => {
    const which = %s, rotated = %s, calls = {};
    const current = Uint8Array.from(atob((await pushSealApplicationServerKey()).replace(/-/g, '+').replace(/_/g, '/')),
        c => c.charCodeAt(0));
    const key = which === 'current' ? current : Uint8Array.from(current, (b, i) => i ? b ^ 0xff : b);
    PushManager.prototype.getSubscription = async () => ({
        options: {applicationServerKey: key.buffer},
        unsubscribe: async () => { calls.unsubscribed = true; return true; } });
    PushManager.prototype.subscribe = async (options) => {
        calls.subscribed_with = options.applicationServerKey;
        return {toJSON: () => rotated}; };
    await refreshSubscription();
    calls.status = document.getElementById('status').textContent;
    return calls; })()"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--subscription", required=True)
    parser.add_argument("--push-log", required=True)
    parser.add_argument("--user", default="user-42")
    parser.add_argument("--rotated-subscription")
    parser.add_argument("--trust-certificate", help="a PEM certificate Chromium trusts (the receipts' HTTPS front)")
    arguments = parser.parse_args()
    subscription = json.load(open(arguments.subscription))
    seen: dict = {}
    with tempfile.TemporaryDirectory(prefix="web-example-", ignore_cleanup_errors=True) as directory:
        ready = os.path.join(directory, "backend.ready")
        backend = subprocess.Popen(
            [sys.executable, os.path.join(EXAMPLE, "backend.py"), "--port", "0", "--user", arguments.user,
             "--ready", ready],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(os.path.join(directory, "backend.log"), "w"),
        )
        browser = None
        try:
            for _ in range(200):
                if os.path.exists(ready):
                    break
                time.sleep(0.05)
            origin = f"http://127.0.0.1:{open(ready).read().strip()}"
            profile = os.path.join(directory, "profile")
            os.mkdir(profile)
            browser = DevTools(profile, arguments.trust_certificate)
            browser.open(origin + "/")
            seen["status"] = browser.wait_for(
                "(() => { const t = document.getElementById('status'); return t && t.textContent !== 'Loading…' && t.textContent })()")
            seen["worker"] = browser.evaluate("navigator.serviceWorker.ready.then(r => r.active.state)")
            seen["permission"] = browser.evaluate("Notification.permission")
            seen["application_server_key"] = browser.evaluate("pushSealApplicationServerKey()")
            seen["browser_subscribe"] = browser.evaluate(
                """navigator.serviceWorker.ready.then(async r => { try {
                       await Promise.race([r.pushManager.subscribe({userVisibleOnly: true,
                           applicationServerKey: await pushSealApplicationServerKey()}),
                           new Promise((_, no) => setTimeout(() => no(new Error('no answer within 5 s')), 5000))]);
                       return 'subscribed'; } catch (error) { return `${error.message}`; } })""")
            device = browser.evaluate(
                f"pushSealRegister({{toJSON: () => ({json.dumps(subscription)})}}).then(() => pushSealDeviceID())")
            seen["device_id"] = device
            seen["registered"] = gateway("GET", f"/v1/devices/{device}")[1]

            status, accepted = gateway("POST", "/v1/pushes", {
                "to": {"user": arguments.user},
                "payload": {"aps": {"alert": {"title": "Order #1042", "subtitle": "Arrives Thursday",
                                              "body": "Shipped today"}, "badge": 3, "sound": "default"},
                            "order": 1042},
                "options": {"collapse_id": "order-1042"},
                "web": {"navigate": "https://shop.example.com/orders/1042",
                        "icon": "https://shop.example.com/icon-192.png", "lang": "en"},
            })
            seen["push"] = {"status": status, "deliveries": accepted.get("deliveries"), "id": accepted.get("id")}
            path = "/" + subscription["endpoint"].split("/", 3)[3]
            content = delivered_content(arguments.push_log, path)
            seen["content"] = json.loads(content)
            registration = browser.registration_id()
            browser.call("ServiceWorker.deliverPushMessage", origin=origin, registrationId=registration, data=content)
            seen["notifications"] = browser.wait_for(f"{NOTIFICATIONS}.then(n => n.length ? n : null)")
            # With receipts, the service worker posted one once the notification was shown.
            if "pushseal_receipt" in seen["content"]:
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline:
                    deliveries = gateway("GET", f"/v1/pushes/{accepted.get('id')}")[1].get("deliveries") or [{}]
                    seen["display"] = deliveries[0].get("display")
                    if seen["display"]:
                        break
                    time.sleep(0.1)

            if arguments.rotated_subscription:
                rotated = json.load(open(arguments.rotated_subscription))
                seen["rotation"] = {}
                for key in ("current", "stale"):
                    seen["rotation"][key] = browser.evaluate(ROTATION % (json.dumps(key), json.dumps(rotated)))
                    seen["rotation"][key]["registered"] = gateway("GET", f"/v1/devices/{device}")[1]
            browser.evaluate("pushSealUnregister()")
            seen["after_unsubscribe"] = gateway("GET", f"/v1/devices/{device}")[0]
        except BaseException as error:
            seen["error"] = f"{type(error).__name__}: {error}"
            seen["traceback"] = traceback.format_exc()[-2000:]
            # What the service worker reported, and Chromium's last words, to tell why.
            if browser:
                seen["worker_errors"] = [event["params"] for event in browser.events
                                         if event.get("method") == "ServiceWorker.workerErrorReported"]
                log = os.path.join(directory, "profile", "chromium.log")
                seen["chromium_log"] = open(log).read()[-2000:] if os.path.exists(log) else ""
        finally:
            if browser:
                browser.close()
            backend.kill()
            backend.wait()
    print(json.dumps(seen), flush=True)


if __name__ == "__main__":
    main()
