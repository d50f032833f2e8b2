"""A second implementation of PushSeal's receipts, written from envelope-v1.md's "Receipts"
alone: it opens a captured APNs payload with a key store (pushseal.py's opener), takes the ticket
the specification names (the display ticket of content that opened, else the failure ticket
beside `enc`), checks its members, and posts the receipt to the ticket's URL.

    python pushseal_receipt.py report --store DIR [--ca-file PEM] < payload.json
    python pushseal_receipt.py vectors envelope-v1.json

`report` prints {"outcome", "reason"?, "status"}: the receipt sent and the server's HTTP status;
or {"receipt": null} for a payload that carries no ticket to report with (status 0), or {"error"}
(status 1). `vectors` checks the file's receipt vectors: what each payload shows, the ticket it
reports with, and the receipt sent, alone and in a batch; it prints "N passed, M failed".
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


def shown_of(outer: dict, opened: dict) -> dict:
    """What is handed on: the opened content, or the payload as it arrived, without the member."""
    source = opened["content"] if opened["status"] == "decrypted" else outer
    return {name: value for name, value in source.items() if name != MEMBER}


def receipt_of(outer: dict, ring: pushseal.KeyRing, opened: dict | None = None) -> tuple[dict, dict] | None:
    """The ticket and the body of the receipt that reports what opening `outer` showed; None for
    a payload with no ticket to report with (none, or a member that is not a ticket, which never
    degrades the notification), or never sealed."""
    opened = opened or pushseal.open_payload(outer, ring)
    if opened["status"] == "decrypted":
        value, body = opened["content"].get(MEMBER), {"outcome": "displayed"}
    elif opened["status"] == "degraded":
        value, body = outer.get(MEMBER), {"outcome": "degraded", "reason": opened["reason"]}
    else:
        return None
    if value is None:
        return None
    try:
        return read_ticket(value), body
    except BadTicket:
        return None


def batch_item(ticket: dict, body: dict) -> dict:
    """The receipt as an item of a batch: the delivery is the URL's last component."""
    return {"delivery": ticket["url"].rsplit("/", 1)[1], "capability": ticket["capability"], **body}


def check_vectors(path: str) -> tuple[int, int]:
    """Checks every receipt vector of envelope-v1.json; returns (passed, failed)."""
    with open(path, encoding="utf-8") as handle:
        vectors = json.load(handle)["receipts"]
    passed = failed = 0
    for vector in vectors:
        ring = pushseal.KeyRing.from_jwks([vector["recipient"]])
        outer = json.loads(vector["payload"])
        opened = pushseal.open_payload(outer, ring)
        outcome = "displayed" if opened["status"] == "decrypted" else "degraded"
        found = receipt_of(outer, ring, opened)
        problems = []
        if outcome != vector["outcome"] or opened.get("reason") != vector.get("reason"):
            problems.append(f"opened {outcome} {opened.get('reason')}")
        if shown_of(outer, opened) != json.loads(vector["shown"]):
            problems.append("shows other content")
        if found is None:
            if vector["ticket"] is not None:
                problems.append("found no ticket")
        else:
            ticket, body = found
            request = vector.get("receipt") or {}
            batch = vector.get("batch") or {}
            if ticket != vector["ticket"]:
                problems.append("reports with another ticket")
            if (request.get("url"), request.get("authorization"), request.get("body")) != (
                ticket["url"], f"Bearer {ticket['capability']}", json.dumps(body, separators=(",", ":"))
            ):
                problems.append("sends another receipt")
            if batch.get("url") != ticket["url"].rsplit("/", 1)[0] or batch.get("item") != batch_item(ticket, body):
                problems.append("batches another receipt")
        if problems:
            failed += 1
            print(f"receipt tcId {vector['tcId']}: {'; '.join(problems)} ({vector['comment']})", file=sys.stderr)
        else:
            passed += 1
    return passed, failed


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
    vectors = commands.add_parser("vectors", help="check the receipt vectors of envelope-v1.json")
    vectors.add_argument("file")
    arguments = parser.parse_args(argv)
    if arguments.command == "vectors":
        passed, failed = check_vectors(arguments.file)
        print(f"{passed} passed, {failed} failed")
        return 0 if failed == 0 and passed > 0 else 1
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
