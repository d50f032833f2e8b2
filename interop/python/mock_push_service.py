"""A local stand-in for a Web Push service (RFC 8030), for PushSeal's Web Push delivery tests.

HTTP/2 over TLS on 127.0.0.1 (h2 and asyncio), with a self-signed certificate made at start.
For every request it checks what a push service checks and what PushSeal promises:

- `Content-Encoding: aes128gcm` and a `TTL` of digits (else 400);
- `Urgency`, when present, one of very-low, low, normal, high; `Topic`, when present, at most
  32 base64url characters (else 400);
- the VAPID authorization (RFC 8292): the ES256 token verifies under its `k`, which must be
  `--vapid-public-key` when given; `aud` is this service's origin; `exp` within 24 hours (else 403);
- the body: at most 4,096 bytes (else 413), and, with `--receiver`, a message that http_ece opens
  with its keys (else 400 with "cannot decrypt", a reason of this mock's own).

With `--inbox DIR`, each message answered 201 is kept as `DIR/<the endpoint's last path
segment>.bin`, the bytes the browser would be handed: the local trial (`make trial`) opens it
with `pushseal webpush open`.

Answers are scripted by the endpoint's path, `/push/<script>/<anything>`:

    ok        201 Created, with a Location          gone       410 Gone
    missing   404 Not Found                        toolarge   413 Payload Too Large
    bad       400 Bad Request                      forbidden  403 Forbidden
    throttle  429 with Retry-After: 1 the first time for its path, then 201
    busy      503 with Retry-After: 3600 always (longer than a client waits)
    flaky     500 once for its path, then 201
    slow      201 after --slow-ms (default 3000) milliseconds
    huge      201 with a body of 50 MB (HTTP/1.1 only), to prove a client stops reading
    dropreused  HTTP/1.1 only: the first time its path comes on a connection that answered before,
              the connection is closed unanswered (a server that closed an idle connection as the
              request came); then as ok
    dropfresh HTTP/1.1 only: a connection's first request on this path is closed unanswered, always
    stall     HTTP/2 only: read and logged (`"stalled": true`), never answered, the connection kept
              open: a push service that takes TLS and then says nothing

With `--also-listen N` it listens on 127.0.0.2 to 127.0.0.(N + 1) as well, the same port, its
certificate naming each address: N + 1 origins (`https://127.0.0.7:PORT`) in one process, as
wildcard DNS makes origins free for whoever registers subscriptions.

Each request appends one JSON line to the log: path, status, ttl, urgency, topic, the VAPID
claims, the decrypted content (base64url) and the connection's number.

With `--http1` it speaks HTTP/1.1 only (ALPN `http/1.1`, kept-alive connections, one request at
a time), as a push service without HTTP/2 does; the checks and scripts are the same; with
`--idle-close-ms` too, it closes a kept-alive connection left idle that long, as many servers do.
With `--max-streams N` (HTTP/2), it allows N concurrent streams per connection.

    python mock_push_service.py serve [--receiver RECEIVER.json] --log requests.jsonl --ready ready.json
                                      [--vapid-public-key K] [--slow-ms 3000] [--port 0] [--http1]
                                      [--idle-close-ms MS] [--max-streams N] [--inbox DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import os
import ssl
import tempfile

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
import http_ece
from cryptography.hazmat.primitives.asymmetric import ec

from mock_apns import self_signed_certificate, serve_until_done
from webpush_peer import b64decode, b64encode, check_vapid, load_json

URGENCIES = {"very-low", "low", "normal", "high"}
BASE64URL = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


class Service:
    def __init__(self, arguments) -> None:
        # Without --receiver, the message is not opened: a real push service cannot open it either.
        self.private_key = self.auth = None
        if arguments.receiver:
            receiver = load_json(arguments.receiver)
            scalar = int.from_bytes(b64decode(receiver["private_key"]["d"]), "big")
            self.private_key = ec.derive_private_key(scalar, ec.SECP256R1())
            self.auth = b64decode(receiver["auth"])
        self.inbox = arguments.inbox
        self.vapid_public_key = arguments.vapid_public_key
        self.log = open(arguments.log, "a", encoding="utf-8")
        self.seen: dict[str, int] = {}
        self.dropped: set[str] = set()
        self.connections = 0
        self.origin = ""

    def answer(self, headers: dict, body: bytes) -> tuple[int, dict, bytes, dict]:
        """The status, extra response headers, response body, and what to log."""
        path = headers.get(":path", "")
        record: dict = {"path": path, "ttl": headers.get("ttl"), "urgency": headers.get("urgency"),
                        "topic": headers.get("topic")}
        if headers.get("content-encoding") != "aes128gcm":
            return 400, {}, b"Content-Encoding must be aes128gcm", record
        if not headers.get("ttl", "").isdigit():
            return 400, {}, b"TTL is required", record
        if "urgency" in headers and headers["urgency"] not in URGENCIES:
            return 400, {}, b"bad Urgency", record
        if "topic" in headers and not (0 < len(headers["topic"]) <= 32 and set(headers["topic"]) <= BASE64URL):
            return 400, {}, b"bad Topic", record
        authorization = headers.get("authorization")
        if authorization is None:
            return 403, {}, b"VAPID authorization required", record
        try:
            vapid = check_vapid(authorization, self.origin + path)
        except Exception as error:
            return 403, {}, f"VAPID: {error}".encode(), record
        if self.vapid_public_key and vapid["public_key"] != self.vapid_public_key:
            return 403, {}, b"VAPID key is not the subscription's application server key", record
        record["vapid"] = vapid["claims"]
        if len(body) > 4096:
            return 413, {}, b"Payload Too Large", record
        if self.private_key is not None:
            try:
                content = http_ece.decrypt(body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm")
            except Exception:
                return 400, {}, b"cannot decrypt", record
            record["content"] = b64encode(content)
        script = path.split("/")[2] if path.count("/") >= 2 else "ok"
        count = self.seen.get(path, 0)
        self.seen[path] = count + 1
        created = (201, {"location": f"/message/{len(self.seen)}-{count}"}, b"", record)
        if script == "gone":
            return 410, {}, b"Gone", record
        if script == "missing":
            return 404, {}, b"Not Found", record
        if script == "toolarge":
            return 413, {}, b"Payload Too Large", record
        if script == "bad":
            return 400, {}, b"Bad Request\x1b[31m with a control byte", record
        if script == "forbidden":
            return 403, {}, b"Forbidden", record
        if script == "throttle" and count == 0:
            return 429, {"retry-after": "1"}, b"Too Many Requests", record
        if script == "busy":
            return 503, {"retry-after": "3600"}, b"Service Unavailable", record
        if script == "flaky" and count == 0:
            return 500, {}, b"Internal Server Error", record
        self.keep(path, body)
        return created

    def keep(self, path: str, body: bytes) -> None:
        """With --inbox, the message as the browser would be handed it, in INBOX/<last segment>.bin
        (written whole, then renamed, so a reader never sees half of it)."""
        name = path.rsplit("/", 1)[-1]
        # Base64url, and the colon of FCM's registration tokens (`/fcm/send/<id>:<token>`).
        if not self.inbox or not name or not set(name) <= BASE64URL | {":"}:
            return
        target = os.path.join(self.inbox, name + ".bin")
        with open(target + ".tmp", "wb") as handle:
            handle.write(body)
        os.replace(target + ".tmp", target)

    def write(self, record: dict) -> None:
        self.log.write(json.dumps(record) + "\n")
        self.log.flush()


async def serve_connection(service: Service, reader, writer, arguments) -> None:
    service.connections += 1
    number = service.connections
    slow_ms = arguments.slow_ms
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
    connection.initiate_connection()
    if arguments.max_streams:
        connection.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: arguments.max_streams})
    writer.write(connection.data_to_send())
    loop = asyncio.get_running_loop()
    streams: dict[int, dict] = {}

    def respond(stream_id: int, status: int, extra: dict, body: bytes) -> None:
        if writer.is_closing():
            return
        headers = [(":status", str(status))] + list(extra.items())
        connection.send_headers(stream_id, headers, end_stream=not body)
        if body:
            connection.send_data(stream_id, body, end_stream=True)
        writer.write(connection.data_to_send())

    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            try:
                events = connection.receive_data(data)
            except h2.exceptions.ProtocolError:
                break
            for event in events:
                if isinstance(event, h2.events.RequestReceived):
                    streams[event.stream_id] = {"headers": dict(event.headers), "body": b""}
                elif isinstance(event, h2.events.DataReceived):
                    streams[event.stream_id]["body"] += event.data
                    connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    stream = streams.pop(event.stream_id)
                    if "/stall/" in stream["headers"].get(":path", ""):
                        service.write({"path": stream["headers"][":path"], "stalled": True, "connection": number})
                        continue
                    status, extra, body, record = service.answer(stream["headers"], stream["body"])
                    record.update({"status": status, "connection": number})
                    service.write(record)
                    if "/slow/" in record["path"] and status == 201:
                        loop.call_later(slow_ms / 1000, respond, event.stream_id, status, extra, body)
                    else:
                        respond(event.stream_id, status, extra, body)
                elif isinstance(event, h2.events.ConnectionTerminated):
                    return
            writer.write(connection.data_to_send())
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


async def serve_http1_connection(service: Service, reader, writer, arguments) -> None:
    """HTTP/1.1 with keep-alive: each request's head and Content-Length body, answered in turn."""
    service.connections += 1
    number = service.connections
    slow_ms = arguments.slow_ms
    idle = arguments.idle_close_ms / 1000 if arguments.idle_close_ms else None
    served = 0
    try:
        while True:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), idle)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError):
                break
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers = {":method": method, ":path": target}
            for line in lines[1:]:
                if line:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            if "/dropfresh/" in target and served == 0:
                service.write({"path": target, "status": None, "connection": number, "http1": True, "dropped": True})
                break
            if "/dropreused/" in target and served > 0 and target not in service.dropped:
                service.dropped.add(target)
                service.write({"path": target, "status": None, "connection": number, "http1": True, "dropped": True})
                break
            served += 1
            status, extra, answer, record = service.answer(headers, body)
            record.update({"status": status, "connection": number, "http1": True})
            service.write(record)
            if "/slow/" in record["path"] and status == 201:
                await asyncio.sleep(slow_ms / 1000)
            huge = "/huge/" in record["path"] and status == 201
            length = 50 * 1024 * 1024 if huge else len(answer)
            response = f"HTTP/1.1 {status} Scripted\r\nContent-Length: {length}\r\n"
            response += "".join(f"{name}: {value}\r\n" for name, value in extra.items())
            writer.write(response.encode() + b"\r\n" + answer)
            await writer.drain()
            if huge:
                block = b"x" * 65536
                for _ in range(length // len(block)):
                    writer.write(block)
                    await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


async def listen_on_every_address(connected, more, requested_port, context):
    """Listens on 127.0.0.1 and on each of `more` at one port, the same service at more origins.

    The port 127.0.0.1 gets may be held on another loopback address (by another test's client
    socket, say): then all of them are tried again on a new port, up to 20 times.
    """
    for _ in range(20):
        server = await asyncio.start_server(connected, "127.0.0.1", requested_port, ssl=context)
        port = server.sockets[0].getsockname()[1]
        if not more:
            return server, None, port
        try:
            others = await asyncio.start_server(connected, list(more), port, ssl=context)
            return server, others, port
        except OSError as error:
            server.close()
            await server.wait_closed()
            if error.errno != errno.EADDRINUSE or requested_port != 0:
                raise
    raise OSError(errno.EADDRINUSE, "no port free on every loopback address after 20 tries")


async def serve(arguments) -> None:
    if arguments.inbox:
        os.makedirs(arguments.inbox, exist_ok=True)
    service = Service(arguments)
    directory = arguments.cert_dir or tempfile.mkdtemp(prefix="mock-push-")
    more = tuple(f"127.0.0.{number}" for number in range(2, arguments.also_listen + 2))
    certificate, key = self_signed_certificate(directory, stem="mock-push", more_addresses=more)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, key)
    context.set_alpn_protocols(["http/1.1"] if arguments.http1 else ["h2"])
    handler = serve_http1_connection if arguments.http1 else serve_connection

    def connected(reader, writer):
        return handler(service, reader, writer, arguments)

    server, others, port = await listen_on_every_address(connected, more, arguments.port, context)
    service.origin = f"https://127.0.0.1:{port}"
    await serve_until_done(server, port, certificate, arguments.ready, arguments.lifetime)
    if others is not None:
        others.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="mock_push_service.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serve_command = commands.add_parser("serve", help="run the mock")
    serve_command.add_argument("--receiver", help="webpush-v1.md's receiver keys, to decrypt with (else not opened)")
    serve_command.add_argument("--inbox", help="write each created message to INBOX/<last path segment>.bin")
    serve_command.add_argument("--log", required=True)
    serve_command.add_argument("--ready", required=True, help="written with the port and certificate once listening")
    serve_command.add_argument("--vapid-public-key", help="the application server key every token must carry")
    serve_command.add_argument("--slow-ms", type=float, default=3000)
    serve_command.add_argument("--port", type=int, default=0)
    serve_command.add_argument("--cert-dir")
    serve_command.add_argument("--lifetime", type=float, default=600, help="seconds before it stops by itself")
    serve_command.add_argument("--http1", action="store_true", help="speak HTTP/1.1 only, as a service without HTTP/2")
    serve_command.add_argument("--idle-close-ms", type=float, help="HTTP/1.1: close a connection idle this long")
    serve_command.add_argument("--max-streams", type=int, help="HTTP/2: concurrent streams allowed per connection")
    serve_command.add_argument(
        "--also-listen", type=int, default=0, metavar="N", help="listen on 127.0.0.2 to 127.0.0.(N + 1) too")
    arguments = parser.parse_args()
    asyncio.run(serve(arguments))


if __name__ == "__main__":
    main()
