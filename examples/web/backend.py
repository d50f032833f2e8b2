"""The backend half of PushSeal's web example (docs/web.md), on Python's standard library alone:
it serves the page and its service worker, and forwards the three calls the page makes to
pushseal-gateway with the gateway's token, which never reaches the browser.

    GET    /pushseal/vapid               -> GET    /v1/webpush/vapid      (the applicationServerKey)
    PUT    /pushseal/subscriptions/{id}  -> PUT    /v1/devices/{id}       {"user", "subscription"}
    DELETE /pushseal/subscriptions/{id}  -> DELETE /v1/devices/{id}

    GATEWAY=http://127.0.0.1:8480 TOKEN=psg_… python3 backend.py [--port 8490] [--user user-42]

Your backend does the same in its own framework. Two things it must do that this example cannot:
take the user from the signed-in session (here `--user`), and refuse a device id that belongs to
another user (the gateway moves a device to whichever user registers it last).
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import re
import sys
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/registration.js": ("registration.js", "text/javascript; charset=utf-8"),
    "/sw.js": ("sw.js", "text/javascript; charset=utf-8"),
    "/manifest.json": ("manifest.json", "application/manifest+json"),
}
SUBSCRIPTION_PATH = re.compile(r"^/pushseal/subscriptions/([0-9a-f-]{36})$")
MAXIMUM_BODY = 8192


class Backend(http.server.BaseHTTPRequestHandler):
    """One request: a static file, or a call forwarded to the gateway."""

    gateway = ""
    token = ""
    user = ""

    def do_GET(self) -> None:
        if self.path == "/pushseal/vapid":
            self.forward("GET", "/v1/webpush/vapid")
        elif self.path in STATIC:
            name, content_type = STATIC[self.path]
            with open(os.path.join(HERE, name), "rb") as handle:
                self.answer(200, handle.read(), content_type)
        else:
            self.answer(404, b'{"error": "not found"}')

    def do_PUT(self) -> None:
        match = SUBSCRIPTION_PATH.match(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        if not match or not 0 < length <= MAXIMUM_BODY:
            self.answer(400, b'{"error": "PUT /pushseal/subscriptions/<uuid> with a subscription"}')
            return
        try:
            subscription = json.loads(self.rfile.read(length))
        except ValueError:
            self.answer(400, b'{"error": "the body is not JSON"}')
            return
        # The gateway checks the subscription itself (an https endpoint, a P-256 key, a 16-byte
        # secret) and answers 400 naming what is wrong.
        registration = {"user": self.user, "subscription": subscription}
        self.forward("PUT", f"/v1/devices/{match.group(1)}", registration)

    def do_DELETE(self) -> None:
        match = SUBSCRIPTION_PATH.match(self.path)
        if not match:
            self.answer(404, b'{"error": "not found"}')
            return
        self.forward("DELETE", f"/v1/devices/{match.group(1)}")

    def forward(self, method: str, path: str, body: dict | None = None) -> None:
        """Makes the call to the gateway with its token, and answers with the gateway's answer."""
        request = urllib.request.Request(
            self.gateway + path, method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                self.answer(response.status, response.read())
        except urllib.error.HTTPError as error:
            self.answer(error.code, error.read())
        except OSError as error:
            self.answer(502, json.dumps({"error": f"the gateway did not answer: {error}"}).encode())

    def answer(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *arguments) -> None:
        sys.stderr.write(f"backend.py: {self.command} {self.path} {arguments[1] if len(arguments) > 1 else ''}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8490)
    parser.add_argument("--user", default="user-42", help="stands in for the signed-in user")
    parser.add_argument("--ready", help="a file to write the port to once listening")
    arguments = parser.parse_args()
    Backend.gateway = os.environ.get("GATEWAY", "http://127.0.0.1:8480").rstrip("/")
    Backend.token = os.environ.get("TOKEN", "")
    Backend.user = arguments.user
    if not Backend.token:
        sys.exit("backend.py: set TOKEN to a gateway token with the devices and read scopes")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", arguments.port), Backend)
    if arguments.ready:
        with open(arguments.ready + ".tmp", "w") as handle:
            handle.write(str(server.server_address[1]))
        os.replace(arguments.ready + ".tmp", arguments.ready)
    print(f"backend.py: the example on http://127.0.0.1:{server.server_address[1]}/", file=sys.stderr)
    server.serve_forever()


if __name__ == "__main__":
    main()
