"""A second implementation of PushSeal's fetched content, written from envelope-v1.md's
"Fetched content" alone, that checks the vector file against it.

Each case's payload is opened with pushseal.py's envelope opener; the reference is read member
by member in the specification's order; the recorded answer stands in for the network; the
content is opened by its format (an envelope with pushseal.py, a Web Push message with
http_ece, RFC 8291's reference library).

    python pushseal_fetch.py vectors fetch-v1.json        "N passed, M failed"
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import sys

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pushseal  # noqa: E402
from pushseal_media import canonical_32, integer, url_allowed  # noqa: E402

MEMBERS = ("url", "capability", "expires", "size", "sha256", "format")
MAXIMUM_SIZE = 65_536


class Degraded(Exception):
    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def read_reference(value) -> dict:
    """Step 9: the reference, in the table's order; a refusal names the member first at fault."""
    if not isinstance(value, dict):
        raise Degraded("malformed-content", "$.fetch")
    for name in value:
        if name not in MEMBERS:
            raise Degraded("malformed-content", f"$.fetch.{name}")
    url = value.get("url")
    if not isinstance(url, str) or not url_allowed(url):
        raise Degraded("malformed-content", "$.fetch.url")
    if canonical_32(value.get("capability")) is None:
        raise Degraded("malformed-content", "$.fetch.capability")
    expires = integer(value.get("expires"))
    if expires is None or expires <= 0:
        raise Degraded("malformed-content", "$.fetch.expires")
    size = integer(value.get("size"))
    if size is None or not 1 <= size <= MAXIMUM_SIZE:
        raise Degraded("malformed-content", "$.fetch.size")
    sha256 = canonical_32(value.get("sha256"))
    if sha256 is None:
        raise Degraded("malformed-content", "$.fetch.sha256")
    if value.get("format") not in ("webpush", "envelope"):
        raise Degraded("malformed-content", "$.fetch.format")
    return {**value, "sha256_bytes": sha256}


def fetch(reference: dict, now: int, case: dict) -> bytes:
    """Steps 10 to 12, with the case's recorded answer as the network."""
    if now >= reference["expires"]:
        raise Degraded("fetch-expired")
    request, answer = case["request"], case["answer"]
    if request is None or answer is None:
        raise AssertionError("a request the case does not expect")
    if request["url"] != reference["url"] or request["authorization"] != "Bearer " + reference["capability"]:
        raise AssertionError("another request than the case's")
    if answer["status"] in (404, 410):
        raise Degraded("fetch-expired")
    if answer["status"] != 200:
        raise Degraded("fetch-failed")
    if answer["content_length"] is not None and answer["content_length"] != reference["size"]:
        raise Degraded("fetch-integrity")
    body = pushseal.b64url_decode(answer["body"])
    if len(body) != reference["size"]:
        raise Degraded("fetch-integrity")
    if not hmac.compare_digest(hashlib.sha256(body).digest(), reference["sha256_bytes"]):
        raise Degraded("fetch-integrity")
    return body


def open_webpush(message: bytes, receiver: dict) -> dict:
    """webpush-v1.md's steps 3 to 6 for the standard mapping's plain JSON objects."""
    scalar = int.from_bytes(pushseal.b64url_decode(receiver["private_key"]["d"]), "big")
    private_key = ec.derive_private_key(scalar, ec.SECP256R1())
    try:
        content = http_ece.decrypt(
            message, private_key=private_key, auth_secret=pushseal.b64url_decode(receiver["auth"]), version="aes128gcm"
        )
    except Exception:
        raise Degraded("decryption-failed") from None
    data = json.loads(content)
    return {"aps": {"alert": {"title": data.get("title"), "body": data.get("body")}}, **data}


def open_case(case: dict, document: dict, ring: pushseal.KeyRing) -> dict:
    outer = pushseal.open_payload(case["payload"], ring)
    if outer["status"] != "decrypted":
        return outer
    try:
        reference = read_reference(outer["content"].get("fetch"))
        body = fetch(reference, document["now"], case)
        if reference["format"] == "webpush":
            content = open_webpush(body, document["keys"]["webpush_receiver"])
        else:
            try:
                content, _ = pushseal.open_envelope(body, ring)
            except pushseal.PushSealError as error:
                raise Degraded(error.reason) from None
            if "fetch" in content:
                raise Degraded("malformed-content", "a fetched envelope refers again")
    except Degraded as degraded:
        return {"status": "degraded", "reason": degraded.reason}
    alert = content.get("aps", {}).get("alert", {})
    result = {"status": "decrypted", "fetched": True, "title": alert.get("title"), "body": alert.get("body")}
    if reference["format"] == "webpush":
        result["format"] = "webpush"
    return result


def check_vectors(path: str) -> tuple[int, int]:
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    ring = pushseal.KeyRing.from_jwks([document["keys"]["device"]], [document["keys"]["sender"]])
    passed = failed = 0
    for vector in document["references"]:
        try:
            read_reference(json.loads(vector["reference_text"]))
            refused_at = None
        except Degraded as degraded:
            refused_at = degraded.detail
        ok = refused_at == vector["refused_at"]
        passed, failed = (passed + 1, failed) if ok else (passed, failed + 1)
        if not ok:
            print(f"reference {vector['comment']!r}: refused at {refused_at}, expected {vector['refused_at']}",
                  file=sys.stderr)
    for case in document["cases"]:
        try:
            result = open_case(case, document, ring)
            expected = {name: case.get(name) for name in ("status", "reason")}
            got = {"status": result["status"], "reason": result.get("reason")}
            if result["status"] == "decrypted":
                for name in ("fetched", "format", "title", "body"):
                    expected[name] = case.get(name)
                    got[name] = result.get(name)
            ok = got == expected
            if not ok:
                print(f"case {case['comment']!r}: got {got}, expected {expected}", file=sys.stderr)
        except Exception as error:  # report and count, never stop
            print(f"case {case['comment']!r}: {error}", file=sys.stderr)
            ok = False
        passed, failed = (passed + 1, failed) if ok else (passed, failed + 1)
    return passed, failed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="pushseal_fetch.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    vectors_command = commands.add_parser("vectors", help="check fetch-v1.json")
    vectors_command.add_argument("file")
    arguments = parser.parse_args(argv)
    passed, failed = check_vectors(arguments.file)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
