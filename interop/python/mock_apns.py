"""A local stand-in for the APNs provider API, for PushSeal's delivery tests.

HTTP/2 over TLS on 127.0.0.1 (h2 and asyncio), with a self-signed certificate made at start.
For every request it checks what APNs checks and what PushSeal promises:

- the ES256 provider token: `alg`, `kid`, `iss`, an `iat` less than an hour old, and the
  signature, verified with the public half of the auth key (else 403 InvalidProviderToken);
  with `--also-key KEY_ID TEAM_ID AUTH_KEY`, more keys are known, and `--key-topics KEY_ID
  TOPIC,…` makes one topic-specific (another topic is 400 TopicDisallowed);
- that a connection keeps to one key, as APNs binds a token-auth connection to the key that
  signs it: a request signed by another key than the connection's first is 403
  InvalidProviderToken;
- the headers: `apns-topic`, `apns-push-type`, `apns-priority`, `apns-expiration`,
  `apns-collapse-id` (else 400 with Apple's reason);
- the size: 4096 bytes, 5120 for VoIP (else 413 PayloadTooLarge);
- that the body is a sealed PushSeal payload: a JSON object whose `enc` is base64url of an
  envelope starting with version 1, or whose `webpush` is base64url of an aes128gcm message
  (a forwarded Web Push message), or whose `webpush_aesgcm` is base64url of a legacy aesgcm
  message's frame (webpush-v1.md), else 400 NotSealed, a reason of this mock's own.

Failures are scripted by the device token's first four hex digits:

    0400  400 BadDeviceToken              0413  413 PayloadTooLarge
    4032  403 InvalidProviderToken once (a key not yet active), then 200
    0410  410 Unregistered + timestamp    4031  403 InvalidProviderToken
          of 2023-11-14                   0411  410 Unregistered + the time of the answer
    0403  403 ExpiredProviderToken, until a request comes with another provider token
    0429  429 TooManyRequests twice, then 200
    0500  500 InternalServerError once, then 200
    0503  503 ServiceUnavailable once, then 200
    5003  503 ServiceUnavailable always
    0999  200 with a 128 KiB body (a client must cap what it reads)

With `--http1` it speaks HTTP/1.1 only (ALPN `http/1.1`) and answers every request 200: a
server that is not APNs, which a client must refuse rather than use.

With `--inbox DIR`, each body answered 200 is also written to `DIR/<device token>.json`
(replacing the token's previous one), what the phone would receive: the local trial
(`make trial`) opens it with `pushseal decrypt`.

Each request appends one JSON line to the log: token, status, reason, a digest of the
provider token (so tests can count how many distinct provider tokens were used), `kid`, the key
id of the provider token's header (when it has one), `at` (when it came, UNIX seconds), the body, the
`apns-` and `content-type` headers, `streams_open`, the requests begun on the connection and not
yet answered when this one ended (this one included), and `connection`, the connection's number.
A client that breaks HTTP/2's rules (more streams than SETTINGS_MAX_CONCURRENT_STREAMS allows)
logs a line with `violation` instead, and loses its connection.

The server keeps h2's defaults (a 65,535-byte window, credited back as soon as the data is read)
unless told otherwise:

    --delay-ms N                   answer each request N ms after it arrived, as APNs does across
                                   the internet (the requests wait concurrently, not in turn)
    --jitter-ms N                  and up to N ms more, at random, so that answers come back in
                                   another order than their requests went, as APNs' do
    --max-concurrent-streams N     SETTINGS_MAX_CONCURRENT_STREAMS (default 100)
    --goaway-after N               after the Nth request of each connection, send GOAWAY naming it
                                   as the last accepted stream; answer the accepted ones, never the
                                   later ones (the client must send those again), then close
    --silent-after N               on the first connection, after its Nth request, read and answer
                                   nothing more (PINGs included) while keeping it open: a connection
                                   that died without a word, which the client must find out itself
    --late-window-credit           credit a request's body back to the connection window only when
                                   answering it, so a client with more bodies in flight than the
                                   window holds waits on flow control for a whole round trip

    python mock_apns.py make-key --out AuthKey.p8
    python mock_apns.py serve --auth-key AuthKey.p8 --key-id KEY --team-id TEAM --log requests.jsonl \\
                              --ready ready.json [--port 0] [--delay-ms 50] [--max-concurrent-streams 5]
                              [--inbox DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import datetime
import hashlib
import ipaddress
import json
import os
import random
import ssl
import string
import tempfile
import threading
import time
import uuid

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
from hyperframe.frame import GoAwayFrame
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID

PUSH_TYPES = {"alert", "background", "voip", "complication", "fileprovider", "mdm", "location", "liveactivity"}
# A device token starting with this is answered SLOW_SECONDS late, whatever --delay-ms says: one
# slow answer among quick ones.
SLOW_PREFIX = "51ee"
SLOW_SECONDS = 3.0


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Behaviour:
    """The checks and the scripted answers; one instance for the server's life."""

    def __init__(self, keys: dict, log_path: str, inbox: str | None = None):
        # Each known key id: its team id, the public half of its auth key, and its topics (None
        # for a team key, which signs for every topic).
        self.keys = keys
        # Each connection's key: the kid of its first request with a valid provider token.
        self.connection_keys: dict[int, str] = {}
        # With --inbox: the last body accepted for each device token, as <token>.json, as the phone
        # would receive it (the local trial opens it with `pushseal decrypt`).
        self.inbox = inbox
        # Flushed whenever the server writes to a client (see serve_connection), so a line is in
        # the file before the client can have the answer it records.
        self.log = open(log_path, "a")
        self.seen: dict[str, int] = {}
        self.rejected_token: dict[str, str] = {}
        # Provider tokens whose signature verified, with their iat: a client reuses one token for
        # thousands of requests, and verifying each again would make the mock the bottleneck.
        self.verified: dict[str, int] = {}
        self.connections = 0

    def verify_token(self, authorization: str | None) -> str | None:
        """The reason the provider token is refused, or None when it is valid."""
        if not authorization or not authorization.startswith("bearer "):
            return "MissingProviderToken"
        known_iat = self.verified.get(authorization)
        if known_iat is not None:
            return None if time.time() - 3600 <= known_iat else "ExpiredProviderToken"
        try:
            header_b64, claims_b64, signature_b64 = authorization[7:].split(".")
            header = json.loads(b64url_decode(header_b64))
            claims = json.loads(b64url_decode(claims_b64))
            signature = b64url_decode(signature_b64)
        except (ValueError, json.JSONDecodeError):
            return "InvalidProviderToken"
        known = self.keys.get(header.get("kid"))
        if header.get("alg") != "ES256" or known is None or claims.get("iss") != known["team_id"]:
            return "InvalidProviderToken"
        iat = claims.get("iat")
        if not isinstance(iat, int) or not time.time() - 3600 <= iat <= time.time() + 60:
            return "ExpiredProviderToken"
        if len(signature) != 64:
            return "InvalidProviderToken"
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        try:
            known["public_key"].verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return "InvalidProviderToken"
        self.verified[authorization] = iat
        return None

    @staticmethod
    def sealed(body: bytes) -> bool:
        """An envelope in `enc`, or a forwarded Web Push message in `webpush` or `webpush_aesgcm`
        (an aes128gcm header, or an aesgcm frame laid out as one: salt, record size, a 65-byte
        key id that is an uncompressed point; then at least a tag)."""
        try:
            payload = json.loads(body)
            members = [name for name in ("webpush", "webpush_aesgcm") if isinstance(payload, dict) and name in payload]
            if isinstance(payload, dict) and "enc" not in payload and len(members) == 1:
                message = b64url_decode(payload[members[0]])
                return len(message) > 86 + 16 and message[20] == 65 and message[21] == 0x04
            envelope = b64url_decode(payload["enc"])
        except (ValueError, KeyError, TypeError, IndexError, json.JSONDecodeError):
            return False
        return isinstance(payload, dict) and len(envelope) > 20 and envelope[0] == 0x01

    @staticmethod
    def key_id(authorization: str | None) -> str | None:
        """The `kid` of a provider token's header, if it has one."""
        try:
            header = json.loads(b64url_decode((authorization or "")[7:].split(".")[0]))
            return header.get("kid") if isinstance(header, dict) else None
        except (ValueError, json.JSONDecodeError, IndexError):
            return None

    def answer(self, path: str, headers: dict, body: bytes, connection: int = 0) -> tuple[int, dict]:
        token = path.rsplit("/", 1)[-1] if path.startswith("/3/device/") else ""
        count = self.seen.get(token, 0) + 1
        self.seen[token] = count
        problem = self.verify_token(headers.get("authorization"))
        prefix = token[:4]
        if problem:
            return 403, {"reason": problem}
        kid = self.key_id(headers.get("authorization"))
        if self.connection_keys.setdefault(connection, kid) != kid:
            return 403, {"reason": "InvalidProviderToken"}
        if not token:
            return 404, {"reason": "BadPath"}
        if "apns-topic" not in headers:
            return 400, {"reason": "MissingTopic"}
        topics = self.keys[kid]["topics"]
        if topics is not None and headers["apns-topic"] not in topics:
            return 400, {"reason": "TopicDisallowed"}
        if headers.get("apns-push-type") not in PUSH_TYPES:
            return 400, {"reason": "InvalidPushType"}
        if headers.get("apns-priority", "10") not in ("5", "10", "1"):
            return 400, {"reason": "BadPriority"}
        if "apns-expiration" in headers and not headers["apns-expiration"].isdigit():
            return 400, {"reason": "BadExpirationDate"}
        if len(headers.get("apns-collapse-id", "").encode()) > 64:
            return 400, {"reason": "BadCollapseId"}
        if len(body) > (5120 if headers.get("apns-push-type") == "voip" else 4096) or prefix == "0413":
            return 413, {"reason": "PayloadTooLarge"}
        if not self.sealed(body):
            return 400, {"reason": "NotSealed"}
        if prefix == "0400":
            return 400, {"reason": "BadDeviceToken"}
        if prefix == "4031" or (prefix == "4032" and count == 1):
            return 403, {"reason": "InvalidProviderToken"}
        if prefix == "0410":
            return 410, {"reason": "Unregistered", "timestamp": 1_700_000_000_000}
        if prefix == "0411":
            return 410, {"reason": "Unregistered", "timestamp": int(time.time() * 1000)}
        if prefix == "0403":
            rejected = self.rejected_token.get(token)
            if rejected is None or rejected == headers.get("authorization"):
                self.rejected_token[token] = headers.get("authorization")
                return 403, {"reason": "ExpiredProviderToken"}
        if prefix == "0429" and count <= 2:
            return 429, {"reason": "TooManyRequests"}
        if prefix == "0500" and count == 1:
            return 500, {"reason": "InternalServerError"}
        if (prefix == "0503" and count == 1) or prefix == "5003":
            return 503, {"reason": "ServiceUnavailable"}
        if prefix == "0999":
            return 200, {"padding": "x" * (128 << 10)}
        return 200, {}

    def record(
        self, token: str, status: int, reason: str | None, authorization: str | None, body: bytes = b"",
        headers: dict | None = None, streams_open: int | None = None, connection: int | None = None,
    ) -> None:
        digest = hashlib.sha256((authorization or "").encode()).hexdigest()[:16]
        entry = {
            "token": token, "status": status, "reason": reason, "jwt": digest, "body": body.decode("utf-8", "replace"),
            "at": time.time(),
        }
        kid = self.key_id(authorization)
        if kid is not None:
            entry["kid"] = kid
        if streams_open is not None:
            entry["streams_open"] = streams_open
        if connection is not None:
            entry["connection"] = connection
        if headers is not None:
            entry["headers"] = {
                name: value for name, value in headers.items() if name.startswith("apns-") or name == "content-type"
            }
        self.log.write(json.dumps(entry) + "\n")
        if self.inbox and status == 200 and body and token and all(c in string.hexdigits for c in token):
            write_atomically(os.path.join(self.inbox, f"{token}.json"), body)


def write_atomically(path: str, content: bytes) -> None:
    """Writes `content` to `path` through a temporary file and a rename, so a reader never sees
    half of it."""
    with open(path + ".tmp", "wb") as handle:
        handle.write(content)
    os.replace(path + ".tmp", path)


async def serve_connection(behaviour: Behaviour, reader, writer, options) -> None:
    behaviour.connections += 1
    number = behaviour.connections
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
    connection.local_settings = h2.settings.Settings(
        client=False,
        initial_values={
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: options.max_concurrent_streams,
            h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: connection.DEFAULT_MAX_HEADER_LIST_SIZE,
        },
    )
    connection.initiate_connection()
    writer.write(connection.data_to_send())
    loop = asyncio.get_running_loop()
    streams: dict[int, dict] = {}
    # Requests begun and not yet answered, by stream id.
    unanswered: set[int] = set()
    begun = 0
    # The last stream a GOAWAY accepted, once one was sent.
    last_accepted: int | None = None
    # Response bodies, by stream, waiting for the client's flow-control window.
    unsent: dict[int, bytes] = {}
    # With --late-window-credit: request body bytes, by stream, not yet credited back.
    late_credit: dict[int, int] = {}

    def finish_if_gone_away() -> None:
        if last_accepted is not None and not any(stream_id <= last_accepted for stream_id in unanswered):
            writer.close()

    flush_scheduled = False

    def flush() -> None:
        """Everything h2 has queued, in one write: answers that fall due together share it."""
        nonlocal flush_scheduled
        flush_scheduled = False
        behaviour.log.flush()
        if not writer.is_closing():
            writer.write(connection.data_to_send())
        finish_if_gone_away()

    def schedule_flush() -> None:
        nonlocal flush_scheduled
        if not flush_scheduled:
            flush_scheduled = True
            loop.call_soon(flush)

    def silent() -> bool:
        return number == 1 and 0 < options.silent_after <= begun

    def respond(stream_id: int, status: int, answer: dict, apns_id: str) -> None:
        unanswered.discard(stream_id)
        if writer.is_closing() or silent():
            return
        if stream_id in late_credit:
            connection.acknowledge_received_data(late_credit.pop(stream_id), stream_id)
        body = json.dumps(answer).encode() if answer else b""
        response = [(":status", str(status)), ("apns-id", apns_id)]
        if body:
            response.append(("content-type", "application/json"))
        connection.send_headers(stream_id, response, end_stream=not body)
        if body:
            unsent[stream_id] = body
            send_body(stream_id)
        schedule_flush()

    def send_body(stream_id: int) -> None:
        """What the peer's flow-control windows allow of a body, in frames no larger than it takes."""
        body = unsent.pop(stream_id)
        try:
            while body:
                allowed = min(connection.local_flow_control_window(stream_id), connection.max_outbound_frame_size)
                if allowed <= 0:
                    unsent[stream_id] = body
                    return
                connection.send_data(stream_id, body[:allowed], end_stream=len(body) <= allowed)
                body = body[allowed:]
        except h2.exceptions.StreamClosedError:
            pass  # the client reset the stream (an answer too large for it)

    try:
        while True:
            if silent():
                # Gone quiet: nothing read, nothing answered, the socket left open.
                await asyncio.Event().wait()
            data = await reader.read(65536)
            if not data:
                break
            try:
                events = connection.receive_data(data)
            except h2.exceptions.ProtocolError as error:
                behaviour.log.write(json.dumps({"violation": f"{type(error).__name__}: {error}", "connection": number}) + "\n")
                flush()
                break
            for event in events:
                if silent():
                    break
                if isinstance(event, h2.events.RequestReceived):
                    streams[event.stream_id] = {"headers": dict(event.headers), "body": b""}
                    unanswered.add(event.stream_id)
                    begun += 1
                    if last_accepted is None and begun == options.goaway_after:
                        last_accepted = event.stream_id
                        writer.write(GoAwayFrame(0, last_stream_id=last_accepted, error_code=0).serialize())
                elif isinstance(event, h2.events.DataReceived):
                    streams[event.stream_id]["body"] += event.data
                    if options.late_window_credit:
                        late_credit[event.stream_id] = late_credit.get(event.stream_id, 0) + event.flow_controlled_length
                    else:
                        connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    stream = streams.pop(event.stream_id)
                    if last_accepted is not None and event.stream_id > last_accepted:
                        # Refused by the GOAWAY: never processed, never answered.
                        unanswered.discard(event.stream_id)
                        continue
                    headers = stream["headers"]
                    status, answer = behaviour.answer(headers.get(":path", ""), headers, stream["body"], number)
                    apns_id = headers.get("apns-id") or str(uuid.uuid4()).upper()
                    behaviour.record(
                        headers.get(":path", "").rsplit("/", 1)[-1], status, answer.get("reason"),
                        headers.get("authorization"), stream["body"], headers, len(unanswered), number,
                    )
                    delay = (options.delay_ms + random.uniform(0, options.jitter_ms)) / 1000
                    if headers.get(":path", "").rsplit("/", 1)[-1].startswith(SLOW_PREFIX):
                        delay = SLOW_SECONDS
                    if delay > 0:
                        loop.call_later(delay, respond, event.stream_id, status, answer, apns_id)
                    else:
                        respond(event.stream_id, status, answer, apns_id)
                elif isinstance(event, h2.events.WindowUpdated):
                    for stream_id in [event.stream_id] if event.stream_id in unsent else list(unsent):
                        send_body(stream_id)
                elif isinstance(event, h2.events.StreamReset):
                    unsent.pop(event.stream_id, None)
                elif isinstance(event, h2.events.ConnectionTerminated):
                    flush()
                    return
            flush()
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


async def serve_http1_connection(behaviour: Behaviour, reader, writer) -> None:
    """HTTP/1.1 only: logs each request with status 0 and answers 200, as a non-APNs server would."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            path = lines[0].split(" ")[1] if " " in lines[0] else ""
            behaviour.record(path.rsplit("/", 1)[-1], 200, "http/1.1", headers.get("authorization"))
            behaviour.log.flush()
            writer.write(b"HTTP/1.1 200 OK\r\napns-id: 00000000-0000-0000-0000-000000000000\r\ncontent-length: 0\r\n\r\n")
            await writer.drain()
            del body
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


def self_signed_certificate(
    directory: str, names: tuple[str, ...] = ("localhost",), address: bool = True, stem: str = "mock-apns",
    more_addresses: tuple[str, ...] = (),
) -> tuple[str, str]:
    """A fresh self-signed P-256 certificate for the DNS `names` (and 127.0.0.1 if `address`, and
    each of `more_addresses`).

    Its subject names the process, so that a client trusting the certificates of several mocks
    in one file (a gateway reaching two push services) finds each by its own name."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"pushseal-{stem}-{os.getpid()}")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(name) for name in names]
                + ([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))] if address else [])
                + [x509.IPAddress(ipaddress.ip_address(extra)) for extra in more_addresses]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    certificate_path = os.path.join(directory, f"{stem}-cert.pem")
    key_path = os.path.join(directory, f"{stem}-key.pem")
    with open(certificate_path, "wb") as handle:
        handle.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return certificate_path, key_path


async def serve(arguments) -> None:
    keys = {}
    for key_id, team_id, path in [(arguments.key_id, arguments.team_id, arguments.auth_key)] + (arguments.also_key or []):
        with open(path, "rb") as handle:
            public_key = serialization.load_pem_private_key(handle.read(), password=None).public_key()
        keys[key_id] = {"team_id": team_id, "public_key": public_key, "topics": None}
    for key_id, topics in arguments.key_topics or []:
        keys[key_id]["topics"] = set(topics.split(","))
    if arguments.inbox:
        os.makedirs(arguments.inbox, exist_ok=True)
    behaviour = Behaviour(keys, arguments.log, arguments.inbox)
    directory = arguments.cert_dir or tempfile.mkdtemp(prefix="mock-apns-")
    certificate, key = self_signed_certificate(directory)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, key)
    context.set_alpn_protocols(["http/1.1"] if arguments.http1 else ["h2"])
    if arguments.http1:
        handler = serve_http1_connection
    else:
        handler = lambda behaviour, reader, writer: serve_connection(behaviour, reader, writer, arguments)
    server = await asyncio.start_server(
        lambda reader, writer: handler(behaviour, reader, writer), "127.0.0.1", arguments.port, ssl=context
    )
    port = server.sockets[0].getsockname()[1]
    await serve_until_done(server, port, certificate, arguments.ready, arguments.lifetime)


async def serve_until_done(server, port: int, certificate: str, ready: str, lifetime: float) -> None:
    """Writes the ready file (port, certificate), then serves until `lifetime` seconds pass or
    standard input closes (the test that started the server has gone), whichever comes first."""
    with open(ready + ".tmp", "w") as handle:
        json.dump({"port": port, "certificate": certificate}, handle)
    os.replace(ready + ".tmp", ready)
    loop = asyncio.get_running_loop()
    stdin_closed = asyncio.Event()

    def watch_stdin() -> None:
        while os.read(0, 65536):
            pass
        loop.call_soon_threadsafe(stdin_closed.set)

    threading.Thread(target=watch_stdin, daemon=True).start()
    async with server:
        try:
            await asyncio.wait_for(stdin_closed.wait(), timeout=lifetime)
        except asyncio.TimeoutError:
            pass


def run_until_released(lifetime: float) -> None:
    """Blocks a threaded server's main thread until standard input closes (the test that started
    it has gone), then ends the process, or until `lifetime` seconds pass."""

    def watch_stdin() -> None:
        while os.read(0, 65536):
            pass
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    deadline = time.time() + lifetime
    while time.time() < deadline:
        time.sleep(0.5)


def make_key(path: str) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(pem)


def main() -> None:
    parser = argparse.ArgumentParser(prog="mock_apns.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    key_command = commands.add_parser("make-key", help="write a fresh P-256 PKCS#8 auth key (.p8)")
    key_command.add_argument("--out", required=True)
    serve_command = commands.add_parser("serve", help="run the mock")
    serve_command.add_argument("--auth-key", required=True)
    serve_command.add_argument("--key-id", required=True)
    serve_command.add_argument("--team-id", required=True)
    serve_command.add_argument("--log", required=True)
    serve_command.add_argument(
        "--also-key", nargs=3, action="append", metavar=("KEY_ID", "TEAM_ID", "AUTH_KEY"), help="another known key")
    serve_command.add_argument(
        "--key-topics", nargs=2, action="append", metavar=("KEY_ID", "TOPICS"),
        help="make KEY_ID topic-specific: it signs only for TOPICS (comma-separated)")
    serve_command.add_argument("--ready", required=True, help="written with the port and certificate once listening")
    serve_command.add_argument("--port", type=int, default=0)
    serve_command.add_argument("--cert-dir")
    serve_command.add_argument("--inbox", help="write each accepted body to INBOX/<device token>.json")
    serve_command.add_argument("--lifetime", type=float, default=600, help="seconds before it stops by itself")
    serve_command.add_argument("--http1", action="store_true", help="speak HTTP/1.1 only, as a server that is not APNs")
    serve_command.add_argument("--delay-ms", type=float, default=0, help="answer each request this many ms late")
    serve_command.add_argument("--jitter-ms", type=float, default=0, help="and up to this many ms more, at random")
    serve_command.add_argument("--max-concurrent-streams", type=int, default=100, help="SETTINGS_MAX_CONCURRENT_STREAMS")
    serve_command.add_argument(
        "--goaway-after", type=int, default=0, help="send GOAWAY after this many requests of each connection (0: never)"
    )
    serve_command.add_argument(
        "--late-window-credit", action="store_true", help="return flow-control credit only when answering"
    )
    serve_command.add_argument(
        "--silent-after", type=int, default=0, help="go silent on the first connection after this many requests"
    )
    arguments = parser.parse_args()
    if arguments.command == "make-key":
        make_key(arguments.out)
    else:
        asyncio.run(serve(arguments))


if __name__ == "__main__":
    main()
