"""RFC 8291 Web Push messages through http_ece, the reference implementation's Python library.

The test suite uses it as the other side of PushSeal's Web Push code: messages sealed by Swift
are opened here, and messages sealed here are opened by Swift.

Command line, JSON Lines on standard input and output, one answer per line in order:
    python webpush_peer.py open --receiver RECEIVER.json
        in:  {"body": base64url}                  out: {"content": base64url} or {"error": text}
    python webpush_peer.py open-aesgcm --receiver RECEIVER.json
        in:  {"frame": base64url}                 out: {"content": base64url} or {"error": text}
        (a legacy aesgcm message as a relay forwards it, read from webpush-v1.md's "Legacy
        aesgcm" alone: salt, record size and sender key from the frame, opened by http_ece)
    python webpush_peer.py seal --subscription SUBSCRIPTION.json [--with pywebpush] [--coding aesgcm]
        in:  {"content": base64url}               out: {"body": base64url}
        (with pywebpush: WebPusher(subscription).encode, as a Python backend sends; aesgcm: the
        frame webpush-v1.md describes, of the salt, the key and the body pywebpush gives)
    python webpush_peer.py bench [--seconds S] < payload.json
        out: {"webpush-rfc8291": {"seal": per second, "open": per second}}: pywebpush's encode (a
             fresh key and http_ece's encryption) of the payload's compact JSON, and http_ece's decrypt
    python webpush_peer.py send
        in:  {"endpoint": URL, "keys": {"p256dh", "auth"}, "content": base64url, "ttl": seconds,
              "headers": {…}, "vapid_key": PEM file or absent, "aud": origin or absent,
              "coding": "aes128gcm" (default) or "aesgcm", "vapid_form": "rfc8292" (default) or "draft"}
        out: {"status": code, "location": text or null, "error": text or null}
        (pywebpush.webpush, as a Python sender posts to a push service; with vapid_key it signs
        a VAPID token whose aud is "aud" when given, else the endpoint's origin, sent as
        "vapid t=…, k=…", or for "draft" as Mastodon sends it: "WebPush <token>" with the key in
        Crypto-Key's p256ecdsa)
    python webpush_peer.py vapid-check
        in:  {"authorization": "vapid t=…, k=…", "endpoint": URL}
        out: {"claims": {...}, "public_key": base64url} or {"error": text}
             (RFC 8292: the ES256 signature under k, aud the endpoint's origin, exp within 24 h)

RECEIVER.json is webpush-v1.md's receiver form, {"private_key": P-256 JWK, "auth": base64url};
SUBSCRIPTION.json is a browser's PushSubscription.toJSON().
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import time
import urllib.parse

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def load_json(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def receiver_key(receiver: dict) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int.from_bytes(b64decode(receiver["private_key"]["d"]), "big"), ec.SECP256R1())


def answer_lines(member: str, open_one) -> None:
    """Opens the base64url `member` of each input line with `open_one`: one answer per line."""
    for line in sys.stdin:
        data = b64decode(json.loads(line)[member])
        try:
            answer = {"content": b64encode(open_one(data))}
        except Exception as error:  # every refusal is an answer, not the end of the batch
            answer = {"error": str(error)}
        print(json.dumps(answer), flush=True)


def open_messages(receiver: dict) -> None:
    private_key, auth = receiver_key(receiver), b64decode(receiver["auth"])
    answer_lines(
        "body", lambda body: http_ece.decrypt(body, private_key=private_key, auth_secret=auth, version="aes128gcm"))


def open_aesgcm_frames(receiver: dict) -> None:
    private_key, auth = receiver_key(receiver), b64decode(receiver["auth"])

    def open_frame(frame: bytes) -> bytes:
        # webpush-v1.md: salt (16) || rs (4, big-endian) || 0x41 || the sender's key (65) || the record
        if len(frame) < 86 or frame[20] != 65:
            raise ValueError("not a frame: no 86-byte header with a 65-byte key")
        salt, rs, dh, record = frame[:16], int.from_bytes(frame[16:20], "big"), frame[21:86], frame[86:]
        return http_ece.decrypt(
            record, salt=salt, dh=dh, private_key=private_key, auth_secret=auth, version="aesgcm", rs=rs)

    answer_lines("frame", open_frame)


def seal_with_pywebpush(subscription: dict, coding: str) -> None:
    import pywebpush

    pusher = pywebpush.WebPusher(subscription)
    for line in sys.stdin:
        content = b64decode(json.loads(line)["content"])
        encoded = pusher.encode(content, content_encoding=coding)
        if coding == "aesgcm":
            frame = b64decode(encoded["salt"].decode()) + (4096).to_bytes(4, "big") + bytes([65])
            body = frame + b64decode(encoded["crypto_key"].decode()) + encoded["body"]
        else:
            body = encoded["body"]
        print(json.dumps({"body": b64encode(body)}), flush=True)


def seal_messages(subscription: dict) -> None:
    receiver_key = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), b64decode(subscription["keys"]["p256dh"]))
    auth = b64decode(subscription["keys"]["auth"])
    for line in sys.stdin:
        content = b64decode(json.loads(line)["content"])
        sender = ec.generate_private_key(ec.SECP256R1())
        body = http_ece.encrypt(
            content, private_key=sender, dh=receiver_key, auth_secret=auth, version="aes128gcm", rs=4096)
        print(json.dumps({"body": b64encode(body)}), flush=True)


def send_messages() -> None:
    import py_vapid
    import pywebpush

    for line in sys.stdin:
        request = json.loads(line)
        subscription = {"endpoint": request["endpoint"], "keys": request["keys"]}
        claims = {"sub": "mailto:ops@example.com"}
        if request.get("aud"):
            claims["aud"] = request["aud"]
        vapid_key = request.get("vapid_key")
        if vapid_key and request.get("vapid_form") == "draft":
            vapid_key = py_vapid.Vapid01.from_file(vapid_key)
        try:
            response = pywebpush.webpush(
                subscription, data=b64decode(request["content"]), ttl=request.get("ttl", 60),
                headers=request.get("headers") or {}, vapid_private_key=vapid_key,
                vapid_claims=claims if vapid_key else None, content_encoding=request.get("coding", "aes128gcm"),
                timeout=10)
            answer = {"status": response.status_code, "location": response.headers.get("Location"), "error": None}
        except pywebpush.WebPushException as error:
            status = error.response.status_code if error.response is not None else None
            text = error.response.text if error.response is not None else str(error)
            answer = {"status": status, "location": None, "error": text}
        print(json.dumps(answer), flush=True)


def check_vapid(authorization: str, endpoint: str) -> dict:
    """RFC 8292 §2 and §3 as a push service applies them; raises ValueError naming the fault."""
    scheme, _, parameters = authorization.partition(" ")
    if scheme.lower() != "vapid":
        raise ValueError(f"scheme {scheme!r} is not vapid")
    fields = dict(part.strip().split("=", 1) for part in parameters.split(","))
    token, key = fields["t"], fields["k"]
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64decode(key))
    header_part, claims_part, signature_part = token.split(".")
    header = json.loads(b64decode(header_part))
    if header.get("alg") != "ES256":
        raise ValueError(f"alg {header.get('alg')!r} is not ES256")
    signature = b64decode(signature_part)
    if len(signature) != 64:
        raise ValueError("the signature is not 64 bytes")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public_key.verify(der, f"{header_part}.{claims_part}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ValueError("the signature does not verify under k")
    claims = json.loads(b64decode(claims_part))
    url = urllib.parse.urlsplit(endpoint)
    origin = f"{url.scheme}://{url.netloc}"
    if claims.get("aud") != origin:
        raise ValueError(f"aud {claims.get('aud')!r} is not {origin!r}")
    if not time.time() < claims["exp"] <= time.time() + 24 * 3600:
        raise ValueError("exp is not within the next 24 hours")
    if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
        raise ValueError("sub is neither mailto: nor https:")
    return {"claims": claims, "public_key": key}


def vapid_checks() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = check_vapid(request["authorization"], request["endpoint"])
        except Exception as error:  # every refusal is an answer, not the end of the batch
            answer = {"error": str(error)}
        print(json.dumps(answer), flush=True)


def bench(payload: dict, seconds: float) -> dict:
    """The work the Swift bench's webpush row measures, through pywebpush and http_ece."""
    import time

    import pywebpush

    content = json.dumps(payload, separators=(",", ":")).encode()
    receiver = ec.generate_private_key(ec.SECP256R1())
    public = receiver.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    auth = os.urandom(16)
    subscription = {"endpoint": "https://push.example.net/bench", "keys": {"p256dh": b64encode(public), "auth": b64encode(auth)}}
    pusher = pywebpush.WebPusher(subscription)
    body = pusher.encode(content)["body"]
    rates = {}
    for name, work in (("seal", lambda: pusher.encode(content)),
                       ("open", lambda: http_ece.decrypt(body, private_key=receiver, auth_secret=auth, version="aes128gcm"))):
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            work()
            count += 1
        rates[name] = count / (time.perf_counter() - start)
    return {"webpush-rfc8291": rates}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    opening = commands.add_parser("open")
    opening.add_argument("--receiver", required=True)
    sealing = commands.add_parser("seal")
    sealing.add_argument("--subscription", required=True)
    sealing.add_argument("--with", dest="library", choices=["http_ece", "pywebpush"], default="http_ece")
    sealing.add_argument("--coding", choices=["aes128gcm", "aesgcm"], default="aes128gcm")
    opening_aesgcm = commands.add_parser("open-aesgcm")
    opening_aesgcm.add_argument("--receiver", required=True)
    commands.add_parser("vapid-check")
    commands.add_parser("send")
    benching = commands.add_parser("bench")
    benching.add_argument("--seconds", type=float, default=1.0)
    arguments = parser.parse_args()
    if arguments.command == "open":
        open_messages(load_json(arguments.receiver))
    elif arguments.command == "open-aesgcm":
        open_aesgcm_frames(load_json(arguments.receiver))
    elif arguments.command == "seal" and arguments.library == "pywebpush":
        seal_with_pywebpush(load_json(arguments.subscription), arguments.coding)
    elif arguments.command == "seal":
        seal_messages(load_json(arguments.subscription))
    elif arguments.command == "send":
        send_messages()
    elif arguments.command == "bench":
        print(json.dumps(bench(json.load(sys.stdin), arguments.seconds)))
    else:
        vapid_checks()


if __name__ == "__main__":
    main()
