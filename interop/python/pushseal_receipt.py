"""A second implementation of PushSeal's receipts, written from envelope-v1.md's "Receipts"
alone: it opens a captured APNs payload with a key store (pushseal.py's opener), takes the ticket
the specification names (the display ticket of content that opened, else the failure ticket
beside `enc`), checks its members, and posts the receipt to the ticket's URL.

    python pushseal_receipt.py report --store DIR [--ca-file PEM] < payload.json

Prints {"outcome", "reason"?, "status"}: the receipt sent and the server's HTTP status; or
{"receipt": null} for a payload that carries no ticket (status 0), or {"error"} (status 1).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import ssl
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pushseal  # noqa: E402

MEMBER = "pushseal_receipt"
TICKET_MEMBERS = {"url", "capability"}


class BadTicket(Exception):
    """A `pushseal_receipt` member that is not a ticket."""


def read_ticket(value) -> dict:
    """A ticket is an object of exactly `url` (https) and `capability` (22 characters of
    base64url, 16 bytes)."""
    if not isinstance(value, dict) or set(value) != TICKET_MEMBERS:
        raise BadTicket("a ticket is an object of exactly url and capability")
    url, capability = value["url"], value["capability"]
    if not isinstance(url, str) or urllib.parse.urlsplit(url).scheme != "https":
        raise BadTicket("url must be an https URL")
    if not isinstance(capability, str) or len(capability) != 22:
        raise BadTicket("capability must be 22 characters of base64url")
    try:
        if len(pushseal.b64url_decode(capability)) != 16:
            raise BadTicket("capability must decode to 16 bytes")
    except ValueError:
        raise BadTicket("capability is not base64url") from None
    return {"url": url, "capability": capability}


def receipt_of(outer: dict, ring: pushseal.KeyRing) -> tuple[dict, dict] | None:
    """The ticket and the body of the receipt that reports what opening `outer` showed; None for
    a payload with no ticket to report with, or never sealed."""
    opened = pushseal.open_payload(outer, ring)
    if opened["status"] == "decrypted":
        value, body = opened["content"].get(MEMBER), {"outcome": "displayed"}
    elif opened["status"] == "degraded":
        value, body = outer.get(MEMBER), {"outcome": "degraded", "reason": opened["reason"]}
    else:
        return None
    if value is None:
        return None
    return read_ticket(value), body


def post(ticket: dict, body: dict, ca_file: str | None) -> int:
    """POST <url> with the capability as a bearer token; no redirect is followed."""
    parts = urllib.parse.urlsplit(ticket["url"])
    context = ssl.create_default_context(cafile=ca_file)
    connection = http.client.HTTPSConnection(parts.hostname, parts.port or 443, context=context, timeout=10)
    try:
        connection.request(
            "POST",
            parts.path + (f"?{parts.query}" if parts.query else ""),
            body=json.dumps(body, separators=(",", ":")).encode(),
            headers={"Authorization": f"Bearer {ticket['capability']}", "Content-Type": "application/json"},
        )
        return connection.getresponse().status
    finally:
        connection.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="pushseal_receipt.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="open a payload from standard input and post its receipt")
    report.add_argument("--store", required=True)
    report.add_argument("--ca-file")
    arguments = parser.parse_args(argv)
    outer = json.load(sys.stdin)
    try:
        found = receipt_of(outer, pushseal.KeyRing.from_store(arguments.store))
        if found is None:
            print(json.dumps({"receipt": None}))
            return 0
        ticket, body = found
        print(json.dumps({**body, "status": post(ticket, body, arguments.ca_file)}))
        return 0
    except (BadTicket, OSError, ValueError) as error:
        print(json.dumps({"error": str(error)}))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
