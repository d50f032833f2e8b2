"""RFC 8291 Web Push messages through http_ece, the reference implementation's Python library.

The test suite uses it as the other side of PushSeal's Web Push code: messages sealed by Swift
are opened here, and messages sealed here are opened by Swift.

Command line, JSON Lines on standard input and output, one answer per line in order:
    python webpush_peer.py open --receiver RECEIVER.json
        in:  {"body": base64url}                  out: {"content": base64url} or {"error": text}
    python webpush_peer.py seal --subscription SUBSCRIPTION.json
        in:  {"content": base64url}               out: {"body": base64url}

RECEIVER.json is webpush-v1.md's receiver form, {"private_key": P-256 JWK, "auth": base64url};
SUBSCRIPTION.json is a browser's PushSubscription.toJSON().
"""

from __future__ import annotations

import argparse
import base64
import json
import sys

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec


def b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def load_json(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def open_messages(receiver: dict) -> None:
    scalar = int.from_bytes(b64decode(receiver["private_key"]["d"]), "big")
    private_key = ec.derive_private_key(scalar, ec.SECP256R1())
    auth = b64decode(receiver["auth"])
    for line in sys.stdin:
        body = b64decode(json.loads(line)["body"])
        try:
            content = http_ece.decrypt(body, private_key=private_key, auth_secret=auth, version="aes128gcm")
            answer = {"content": b64encode(content)}
        except Exception as error:  # every refusal is an answer, not the end of the batch
            answer = {"error": str(error)}
        print(json.dumps(answer), flush=True)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    opening = commands.add_parser("open")
    opening.add_argument("--receiver", required=True)
    sealing = commands.add_parser("seal")
    sealing.add_argument("--subscription", required=True)
    arguments = parser.parse_args()
    if arguments.command == "open":
        open_messages(load_json(arguments.receiver))
    else:
        seal_messages(load_json(arguments.subscription))


if __name__ == "__main__":
    main()
