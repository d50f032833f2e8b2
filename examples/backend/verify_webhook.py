"""Verifies a PushSeal gateway webhook in Python with the standard library alone, as the Standard
Webhooks specification says (gateway-v1.md, "Webhooks"). Copy `verify` into your receiver; the
`standardwebhooks` package on PyPI does the same.

    python3 verify_webhook.py --secret-file whsec.txt --id msg_… --timestamp 1765000000 \
        --signature "v1,…" body.json        # prints "verified", status 0; else the reason, status 1
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import sys
import time

TOLERANCE_SECONDS = 300


class WebhookRefused(Exception):
    """The message is not the gateway's, or not now."""


def verify(secret: str, webhook_id: str, timestamp: str, signature: str, body: bytes,
           now: float | None = None) -> None:
    """Raises WebhookRefused unless one of `signature`'s `v1,` entries is the HMAC-SHA256, under
    `secret` (`whsec_` and base64), of `{id}.{timestamp}.{body}`, and `timestamp` is within five
    minutes of `now`. Compare the raw body as received, before any JSON parsing."""
    if not secret.startswith("whsec_"):
        raise WebhookRefused("the secret must start with whsec_")
    key = base64.b64decode(secret[len("whsec_"):])
    try:
        sent = int(timestamp)
    except ValueError:
        raise WebhookRefused("webhook-timestamp is not a number") from None
    if abs((time.time() if now is None else now) - sent) > TOLERANCE_SECONDS:
        raise WebhookRefused("webhook-timestamp is more than five minutes away: a replay, or a clock off")
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    # During a secret rotation the gateway sends one signature per secret, space-separated.
    for entry in signature.split(" "):
        version, _, value = entry.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return
    raise WebhookRefused("no signature verifies under this secret")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--secret-file", required=True)
    parser.add_argument("--id", required=True, help="the webhook-id header")
    parser.add_argument("--timestamp", required=True, help="the webhook-timestamp header")
    parser.add_argument("--signature", required=True, help="the webhook-signature header")
    parser.add_argument("body", help="the request body, as received")
    arguments = parser.parse_args()
    with open(arguments.secret_file) as handle:
        secret = handle.read().strip()
    with open(arguments.body, "rb") as handle:
        body = handle.read()
    try:
        verify(secret, arguments.id, arguments.timestamp, arguments.signature, body)
    except WebhookRefused as refusal:
        print(f"refused: {refusal}")
        sys.exit(1)
    print("verified")


if __name__ == "__main__":
    main()
