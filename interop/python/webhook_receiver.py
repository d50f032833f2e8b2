"""A webhook receiver for PushSeal's gateway tests: HTTPS (HTTP/1.1, kept-alive connections) on
127.0.0.1 with a self-signed certificate made at start, verifying every message with the
Standard Webhooks reference library from PyPI (`standardwebhooks`), as a backend would.

Each `--secret` is tried on its own: the log says which of them verify a message, so a test can
show that a message signed during a rotation verifies under the old secret and under the new one.

Answers are scripted by the path:

    /hooks/ok/<name>        204
    /hooks/fail/<n>/<name>  503 for the first n requests to the path, then 204
    /hooks/down/<name>      500 always
    /hooks/slow/<name>      204 after --slow-seconds (3)
    /hooks/huge/<name>      200 with a body of 50 MB, to prove a client stops reading
    /hooks/partial/<name>   204 for a connection's first request; a later one on the same
                            connection is read and logged, then gets `HTTP/1.1 2` (part of a
                            status line) and the connection closes: a client must not send it
                            again, since the receiver may have acted on it

With `--http10` it is Python's stock `http.server` as it comes: it answers `HTTP/1.0` and closes
the connection after every answer, without saying `Connection: close`. With `--idle-timeout S`
it closes a kept-alive connection left idle for S seconds (as Node's server does after 5 s).

Each request appends one JSON line to the log as it arrives (a slow one before its wait): path, status, the three webhook headers, which
secrets verified it (indices into the --secret list), and the body parsed as JSON.

    python webhook_receiver.py --secret whsec_... [--secret whsec_...] --log requests.jsonl
                               --ready ready.json --cert-dir DIR [--lifetime 300]
                               [--http10 | --idle-timeout SECONDS] [--slow-seconds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from mock_apns import self_signed_certificate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--secret", action="append", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ready", required=True)
    parser.add_argument("--cert-dir", required=True)
    parser.add_argument("--lifetime", type=float, default=300)
    parser.add_argument("--slow-seconds", type=float, default=3)
    parser.add_argument("--http10", action="store_true", help="answer as the stock http.server: HTTP/1.0, then close")
    parser.add_argument("--idle-timeout", type=float, help="close a kept-alive connection idle this many seconds")
    arguments = parser.parse_args()
    verifiers = [Webhook(secret) for secret in arguments.secret]
    counts: dict[str, int] = {}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0" if arguments.http10 else "HTTP/1.1"
        timeout = arguments.idle_timeout

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            headers = {name: self.headers.get(name, "") for name in ("webhook-id", "webhook-timestamp", "webhook-signature")}
            verified = []
            for index, verifier in enumerate(verifiers):
                try:
                    verifier.verify(body, headers)
                    verified.append(index)
                except WebhookVerificationError:
                    pass
            parts = self.path.strip("/").split("/")
            with lock:
                counts[self.path] = counts.get(self.path, 0) + 1
                seen = counts[self.path]
            status = 204
            if len(parts) >= 2 and parts[1] == "fail" and seen <= int(parts[2]):
                status = 503
            elif len(parts) >= 2 and parts[1] == "down":
                status = 500
            elif len(parts) >= 2 and parts[1] == "huge":
                status = 200
            # Requests answered on this connection before this one.
            served = getattr(self, "served", 0)
            self.served = served + 1
            partial = len(parts) >= 2 and parts[1] == "partial" and served > 0
            if partial:
                status = None
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
            line = {"path": self.path, "status": status, "headers": headers, "verified": verified, "body": parsed}
            with lock, open(arguments.log, "a") as log:
                log.write(json.dumps(line) + "\n")
            if partial:
                self.wfile.write(b"HTTP/1.1 2")
                self.wfile.flush()
                self.close_connection = True
                return
            if len(parts) >= 2 and parts[1] == "slow":
                time.sleep(arguments.slow_seconds)
            if len(parts) >= 2 and parts[1] == "huge":
                self.send_response(status)
                self.send_header("Content-Length", str(50 * 1024 * 1024))
                self.end_headers()
                try:
                    for _ in range(50 * 16):
                        self.wfile.write(b"x" * 65536)
                except OSError:
                    pass
                return
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

    certificate, key = self_signed_certificate(arguments.cert_dir, stem="webhook-receiver")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(arguments.ready + ".tmp", "w") as handle:
        json.dump({"port": server.server_address[1], "certificate": certificate}, handle)
    os.replace(arguments.ready + ".tmp", arguments.ready)
    # Serves until standard input closes (the test has gone) or the lifetime passes.
    watcher = threading.Thread(target=lambda: [None for _ in iter(lambda: os.read(0, 65536), b"")], daemon=True)
    watcher.start()
    watcher.join(timeout=arguments.lifetime)


if __name__ == "__main__":
    main()
