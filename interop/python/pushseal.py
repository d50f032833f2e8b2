"""PushSeal envelope v1 in Python: seal and open APNs payloads for PushSeal devices.

An independent implementation of docs/envelope-v1.md, built on pyhpke (HPKE), cryptography
(X25519, P-256) and PyNaCl (XChaCha20-Poly1305). A Python backend can seal with it directly;
the test suite uses it to prove that the Swift implementation and the vectors agree with a
second, separately written implementation.

Library:
    envelope = seal(content_bytes, recipient_jwk, sender_jwk=None)
    outer = seal_payload(payload_dict, recipient_jwk, sender_jwk=None)
    content = open_envelope(envelope_bytes, KeyRing(device_jwks, sender_jwks))   # raises PushSealError
    result = open_payload(outer_dict, ring)      # {"status": ..., "reason"?: ..., "content"?: ...}

Command line (JSON on standard input and output):
    python pushseal.py seal --to RECIPIENT.jwk [--sender SENDER.jwk] [--json-lines]
    python pushseal.py open --store STORE_DIR [--json-lines]
    python pushseal.py vectors envelope-v1.json
    python pushseal.py bench [--seconds S] < payload.json
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass, field

import nacl.bindings
from cryptography.hazmat.primitives.asymmetric import ec, x25519
from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKey
from pyhpke.kem_key import KEMKeyPair

INFO = b"pushseal v1"
VERSION = 0x01
TAG_BYTES = 16
MODE_BASE, MODE_AUTH = 0x00, 0x02
# Always matched whole (fullmatch): `$` would also match before a final newline.
KID_PATTERN = re.compile(rb"[A-Za-z0-9._-]{1,64}")


@dataclass(frozen=True)
class Suite:
    id: int
    name: str
    enc_bytes: int
    kty: str


X25519_SUITE = Suite(0x01, "X25519-SHA256-ChaCha20Poly1305", 32, "OKP")
P256_SUITE = Suite(0x02, "P256-SHA256-AES256GCM", 65, "EC")
XCHACHA_SUITE = Suite(0x03, "XChaCha20Poly1305", 24, "oct")
SUITES = {suite.id: suite for suite in (X25519_SUITE, P256_SUITE, XCHACHA_SUITE)}

HPKE_SUITES = {
    0x01: CipherSuite.new(KEMId.DHKEM_X25519_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.CHACHA20_POLY1305),
    0x02: CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM),
}


class PushSealError(Exception):
    """A failure with one of the reasons of envelope-v1.md (or invalid-key for a bad JWK)."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


# ---------------------------------------------------------------- base64url


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict unpadded base64url: alphabet only, no padding, canonical trailing bits."""
    raw = text.encode("ascii", "strict") if isinstance(text, str) else text
    if not re.fullmatch(rb"[A-Za-z0-9_-]*", raw) or len(raw) % 4 == 1:
        raise ValueError("not base64url without padding")
    data = base64.urlsafe_b64decode(raw + b"=" * (-len(raw) % 4))
    if b64url_encode(data).encode("ascii") != raw:
        raise ValueError("non-canonical base64url")
    return data


# ---------------------------------------------------------------- keys


@dataclass
class Key:
    """A JWK read into the suite, kid and key objects."""

    suite: Suite
    kid: str
    public_raw: bytes | None = None  # 32 bytes (X25519) or the 65-byte point (P-256)
    private: object | None = None  # cryptography private key, or the 32-byte shared secret
    public: object | None = None  # cryptography public key

    def hpke_private(self) -> object:
        return KEMKey.from_pyca_cryptography_key(self.private)

    def hpke_public(self) -> object:
        return KEMKey.from_pyca_cryptography_key(self.public)


def default_kid(public_raw: bytes) -> str:
    return b64url_encode(hashlib.sha256(public_raw).digest()[:8])


def _member(jwk: dict, name: str, length: int) -> bytes:
    value = jwk.get(name)
    if not isinstance(value, str):
        raise PushSealError("invalid-key", f'JWK member "{name}" is missing or not a string')
    try:
        data = b64url_decode(value)
    except ValueError as error:
        raise PushSealError("invalid-key", f'JWK member "{name}": {error}') from None
    if len(data) != length:
        raise PushSealError("invalid-key", f'JWK member "{name}" must hold {length} bytes')
    return data


def load_jwk(jwk: dict, need_private: bool = False) -> Key:
    """Reads a JWK of envelope-v1.md (OKP/X25519, EC/P-256, oct)."""
    kty = jwk.get("kty")
    if kty == "OKP" and jwk.get("crv") == "X25519":
        suite = X25519_SUITE
    elif kty == "EC" and jwk.get("crv") == "P-256":
        suite = P256_SUITE
    elif kty == "oct":
        suite = XCHACHA_SUITE
    else:
        raise PushSealError("invalid-key", "unsupported kty/crv")
    kid = jwk.get("kid")
    if kid is not None and (not isinstance(kid, str) or not KID_PATTERN.fullmatch(kid.encode())):
        raise PushSealError("invalid-key", "bad kid")

    key = Key(suite=suite, kid=kid or "")
    if suite is XCHACHA_SUITE:
        key.private = _member(jwk, "k", 32)
        if not kid:
            key.kid = b64url_encode(os.urandom(8))
        return key
    if suite is X25519_SUITE:
        if "d" in jwk:
            key.private = x25519.X25519PrivateKey.from_private_bytes(_member(jwk, "d", 32))
            key.public = key.private.public_key()
        else:
            key.public = x25519.X25519PublicKey.from_public_bytes(_member(jwk, "x", 32))
        key.public_raw = key.public.public_bytes_raw()
    else:
        if "d" in jwk:
            scalar = int.from_bytes(_member(jwk, "d", 32), "big")
            try:
                key.private = ec.derive_private_key(scalar, ec.SECP256R1())
            except ValueError:
                raise PushSealError("invalid-key", "d is not a valid P-256 scalar") from None
            key.public = key.private.public_key()
        else:
            point = b"\x04" + _member(jwk, "x", 32) + _member(jwk, "y", 32)
            try:
                key.public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
            except ValueError:
                raise PushSealError("invalid-key", "x/y is not a point on P-256") from None
        key.public_raw = key.public.public_bytes(
            encoding=_serialization().Encoding.X962, format=_serialization().PublicFormat.UncompressedPoint
        )
    if need_private and key.private is None:
        raise PushSealError("invalid-key", "this is not a private key")
    if not kid:
        key.kid = default_kid(key.public_raw)
    return key


def _serialization():
    from cryptography.hazmat.primitives import serialization

    return serialization


@dataclass
class KeyRing:
    """The keys an opener holds: device keys and trusted sender public keys."""

    devices: list[Key] = field(default_factory=list)
    senders: list[Key] = field(default_factory=list)

    @classmethod
    def from_jwks(cls, devices: list[dict], senders: list[dict] = ()) -> "KeyRing":
        return cls([load_jwk(j, need_private=True) for j in devices], [load_jwk(j) for j in senders])

    @classmethod
    def from_store(cls, directory: str) -> "KeyRing":
        """Reads a PushSeal file key store (keys.json, format version 1)."""
        with open(os.path.join(directory, "keys.json"), "rb") as handle:
            document = json.load(handle)
        if document.get("format") != "pushseal-key-store" or document.get("version") != 1:
            raise PushSealError("key-store-unavailable", "not a PushSeal key store")
        ring = cls()
        for entry in document["keys"]:
            key = load_jwk(entry["jwk"], need_private=entry["role"] == "device")
            (ring.devices if entry["role"] == "device" else ring.senders).append(key)
        return ring

    def device(self, kid: str, suite: Suite) -> Key | None:
        return next((k for k in self.devices if k.kid == kid and k.suite is suite), None)

    def sender(self, kid: str, suite: Suite) -> Key | None:
        return next((k for k in self.senders if k.kid == kid and k.suite is suite), None)

    def pins(self, suite: Suite) -> bool:
        return suite is not XCHACHA_SUITE and any(k.suite is suite for k in self.senders)


# ---------------------------------------------------------------- envelope


def header_bytes(suite: Suite, mode: int, kid: str, skid: str | None, enc: bytes) -> bytes:
    out = bytes([VERSION, suite.id, mode, len(kid)]) + kid.encode("ascii")
    if skid is not None:
        out += bytes([len(skid)]) + skid.encode("ascii")
    return out + enc


def pad(content: bytes, length: int) -> bytes:
    return content + b"\x80" + b"\x00" * (length - len(content) - 1)


def unpad(padded: bytes) -> bytes:
    stripped = padded.rstrip(b"\x00")
    if not stripped or stripped[-1] != 0x80:
        raise PushSealError("malformed-content", "bad padding")
    return stripped[:-1]


def padded_length(content_length: int, block: int, maximum: int) -> int | None:
    minimal = content_length + 1
    if minimal > maximum:
        return None
    return min(-(-minimal // block) * block, maximum)


def seal(
    padded: bytes,
    recipient: dict | Key,
    sender: dict | Key | None = None,
    ephemeral_private: bytes | None = None,
    nonce: bytes | None = None,
) -> bytes:
    """Seals an already padded plaintext; with a sender, in HPKE auth mode."""
    recipient = recipient if isinstance(recipient, Key) else load_jwk(recipient)
    sender = sender if (sender is None or isinstance(sender, Key)) else load_jwk(sender, need_private=True)
    suite = recipient.suite
    if suite is XCHACHA_SUITE:
        if sender is not None:
            raise PushSealError("invalid-key", "suite 0x03 has no auth mode")
        nonce = nonce or os.urandom(24)
        header = header_bytes(suite, MODE_BASE, recipient.kid, None, nonce)
        return header + nacl.bindings.crypto_aead_xchacha20poly1305_ietf_encrypt(padded, header, nonce, recipient.private)

    if sender is not None and sender.suite is not suite:
        raise PushSealError("invalid-key", "sender and recipient suites differ")
    hpke = HPKE_SUITES[suite.id]
    eks = None
    if ephemeral_private is not None:
        if suite is X25519_SUITE:
            private = x25519.X25519PrivateKey.from_private_bytes(ephemeral_private)
        else:
            private = ec.derive_private_key(int.from_bytes(ephemeral_private, "big"), ec.SECP256R1())
        eks = KEMKeyPair(KEMKey.from_pyca_cryptography_key(private), KEMKey.from_pyca_cryptography_key(private.public_key()))
    enc, context = hpke.create_sender_context(
        recipient.hpke_public(), info=INFO, sks=sender.hpke_private() if sender else None, eks=eks
    )
    mode = MODE_AUTH if sender else MODE_BASE
    header = header_bytes(suite, mode, recipient.kid, sender.kid if sender else None, enc)
    return header + context.seal(padded, aad=header)


def parse_header(envelope: bytes) -> tuple[Suite, int, str, str | None, bytes, int]:
    """The header fields and its length; raises malformed-envelope / unsupported-*."""

    def need(offset: int, count: int) -> None:
        if len(envelope) < offset + count:
            raise PushSealError("malformed-envelope", f"truncated at byte {offset}")

    need(0, 1)
    if envelope[0] != VERSION:
        raise PushSealError("unsupported-version")
    need(1, 1)
    suite = SUITES.get(envelope[1])
    if suite is None:
        raise PushSealError("unsupported-suite")
    need(2, 1)
    mode = envelope[2]
    if mode not in (MODE_BASE, MODE_AUTH) or (mode == MODE_AUTH and suite is XCHACHA_SUITE):
        raise PushSealError("malformed-envelope", "bad mode")
    offset = 3

    def key_id() -> str:
        nonlocal offset
        need(offset, 1)
        length = envelope[offset]
        if not 1 <= length <= 64:
            raise PushSealError("malformed-envelope", "bad key id length")
        need(offset + 1, length)
        raw = envelope[offset + 1 : offset + 1 + length]
        if not KID_PATTERN.fullmatch(raw):
            raise PushSealError("malformed-envelope", "bad key id")
        offset += 1 + length
        return raw.decode("ascii")

    kid = key_id()
    skid = key_id() if mode == MODE_AUTH else None
    need(offset, suite.enc_bytes)
    enc = envelope[offset : offset + suite.enc_bytes]
    return suite, mode, kid, skid, enc, offset + suite.enc_bytes


def _reject_duplicates(pairs: list) -> dict:
    keys = [name for name, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate member")
    return dict(pairs)


def parse_content(padded: bytes) -> dict:
    content = unpad(padded)
    try:
        value = json.loads(
            content.decode("utf-8"),
            object_pairs_hook=_reject_duplicates,
            parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)),
        )
    except (UnicodeDecodeError, ValueError):
        raise PushSealError("malformed-content", "not UTF-8 JSON") from None
    if not isinstance(value, dict):
        raise PushSealError("malformed-content", "not a JSON object")
    return value


def open_envelope(envelope: bytes, ring: KeyRing) -> tuple[dict, dict]:
    """Steps 2-4 of "Opening and rewriting": returns the content and the header's fields."""
    suite, mode, kid, skid, enc, header_length = parse_header(envelope)
    ciphertext = envelope[header_length:]
    if len(ciphertext) < TAG_BYTES:
        raise PushSealError("malformed-envelope", "ciphertext shorter than the tag")
    key = ring.device(kid, suite)
    if key is None:
        raise PushSealError("unknown-key", kid)
    sender = None
    if mode == MODE_AUTH:
        sender = ring.sender(skid, suite)
        if sender is None:
            raise PushSealError("untrusted-sender", skid)
    elif ring.pins(suite):
        raise PushSealError("authentication-required")
    header = envelope[:header_length]
    try:
        if suite is XCHACHA_SUITE:
            padded = nacl.bindings.crypto_aead_xchacha20poly1305_ietf_decrypt(ciphertext, header, enc, key.private)
        else:
            hpke = HPKE_SUITES[suite.id]
            context = hpke.create_recipient_context(
                enc, key.hpke_private(), info=INFO, pks=sender.hpke_public() if sender else None
            )
            padded = context.open(ciphertext, aad=header)
    except Exception:  # every AEAD or KEM failure is one reason, by design
        raise PushSealError("decryption-failed") from None
    fields = {"kid": kid, "suite": suite.name, "mode": "auth" if mode == MODE_AUTH else "base"}
    if skid:
        fields["skid"] = skid
    return parse_content(padded), fields


# ---------------------------------------------------------------- outer payloads


def compact(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def seal_payload(
    payload: dict,
    recipient: dict | Key,
    sender: dict | Key | None = None,
    title: str = "New notification",
    body: str = "Open the app to view it.",
    pad_block: int = 128,
    limit: int = 4096,
) -> dict:
    """Seals an alert payload into the outer payload of envelope-v1.md, within `limit` bytes."""
    if "enc" in payload:
        raise PushSealError("invalid-payload", "$.enc is reserved")
    recipient_key = recipient if isinstance(recipient, Key) else load_jwk(recipient)
    sender_key = sender if (sender is None or isinstance(sender, Key)) else load_jwk(sender, need_private=True)
    outer = {"aps": {"alert": {"title": title, "body": body}, "mutable-content": 1}, "enc": ""}
    room = limit - len(compact(outer))
    overhead = len(header_bytes(recipient_key.suite, 0, recipient_key.kid, sender_key.kid if sender_key else None, b"")) + recipient_key.suite.enc_bytes + TAG_BYTES
    content = compact(payload)
    length = padded_length(len(content), pad_block, room * 3 // 4 - overhead)
    if length is None:
        raise PushSealError("payload-too-large", f"over the {limit}-byte limit")
    outer["enc"] = b64url_encode(seal(pad(content, length), recipient_key, sender_key))
    return outer


def open_payload(outer: dict, ring: KeyRing) -> dict:
    """Steps 1-6: plain, decrypted (with the content) or degraded (with the reason)."""
    text = outer.get("enc")
    if not isinstance(text, str):
        return {"status": "plain"}
    try:
        try:
            envelope = b64url_decode(text)
        except (ValueError, UnicodeEncodeError):
            raise PushSealError("malformed-envelope", "enc is not base64url") from None
        content, fields = open_envelope(envelope, ring)
    except PushSealError as error:
        return {"status": "degraded", "reason": error.reason}
    return {"status": "decrypted", **fields, "content": content}


# ---------------------------------------------------------------- vectors and CLI


def check_vectors(path: str) -> tuple[int, int]:
    """Checks every vector of envelope-v1.json; returns (passed, failed)."""
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    passed = failed = 0
    for vector in document["positive"]:
        try:
            recipient = load_jwk(vector["recipient"], need_private=True)
            public = dict(vector["recipient"])
            public.pop("d", None)
            sender = vector.get("sender")
            ephemeral = bytes.fromhex(vector["ephemeralPrivateKey"]) if "ephemeralPrivateKey" in vector else None
            nonce = bytes.fromhex(vector["nonce"]) if "nonce" in vector else None
            target = recipient if recipient.suite is XCHACHA_SUITE else load_jwk(public)
            padded = pad(vector["content"].encode("utf-8"), vector["paddedLength"])
            envelope = seal(padded, target, sender, ephemeral_private=ephemeral, nonce=nonce)
            ring = KeyRing.from_jwks([vector["recipient"]], [sender] if sender else [])
            content, _ = open_envelope(b64url_decode(vector["envelope"]), ring)
            ok = b64url_encode(envelope) == vector["envelope"] and content == json.loads(vector["content"])
        except Exception as error:  # report and count, never stop
            print(f"tcId {vector['tcId']}: {error}", file=sys.stderr)
            ok = False
        passed, failed = (passed + 1, failed) if ok else (passed, failed + 1)
        if not ok:
            print(f"positive tcId {vector['tcId']} failed: {vector['comment']}", file=sys.stderr)
    for vector in document["negative"]:
        ring = KeyRing.from_jwks([vector["recipient"]], vector.get("trustedSenders", []))
        result = open_payload({"enc": vector["envelope"]}, ring)
        ok = result.get("reason") == vector["reason"]
        passed, failed = (passed + 1, failed) if ok else (passed, failed + 1)
        if not ok:
            print(f"negative tcId {vector['tcId']}: got {result.get('reason', result['status'])}, "
                  f"expected {vector['reason']} ({vector['comment']})", file=sys.stderr)
    return passed, failed


def bench(payload: dict, seconds: float) -> dict:
    """Seal and open rates (messages per second) for every suite and mode, doing the work the
    Swift bench measures: a payload to a serialised outer payload, and an envelope's text to its
    parsed content."""
    import time

    results = {}
    for suite_name, kty in (("x25519", "OKP"), ("p256", "EC"), ("xchacha", "oct")):
        for auth in (False, True) if kty != "oct" else (False,):
            device, sender = _bench_key(kty), _bench_key(kty) if auth else None
            recipient = device if kty == "oct" else Key(device.suite, device.kid, device.public_raw, None, device.public)
            ring = KeyRing([device], [sender] if sender else [])
            outer = seal_payload(payload, recipient, sender)
            rates = {}
            for name, work in (("seal", lambda: compact(seal_payload(payload, recipient, sender))),
                               ("open", lambda: open_payload(outer, ring))):
                count, start = 0, time.perf_counter()
                while time.perf_counter() - start < seconds:
                    work()
                    count += 1
                rates[name] = count / (time.perf_counter() - start)
            results[f"{suite_name}-{'auth' if auth else 'base'}"] = rates
    return results


def _bench_key(kty: str) -> Key:
    if kty == "oct":
        return Key(XCHACHA_SUITE, "bench-shared", None, os.urandom(32))
    private = x25519.X25519PrivateKey.generate() if kty == "OKP" else ec.generate_private_key(ec.SECP256R1())
    raw = private.public_key().public_bytes(
        _serialization().Encoding.Raw if kty == "OKP" else _serialization().Encoding.X962,
        _serialization().PublicFormat.Raw if kty == "OKP" else _serialization().PublicFormat.UncompressedPoint)
    return Key(X25519_SUITE if kty == "OKP" else P256_SUITE, default_kid(raw), raw, private, private.public_key())


def _read_json(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _inputs(json_lines: bool):
    if json_lines:
        for line in sys.stdin:
            if line.strip():
                yield json.loads(line)
    else:
        yield json.load(sys.stdin)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="pushseal.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    seal_command = commands.add_parser("seal", help="seal payloads from standard input")
    seal_command.add_argument("--to", required=True)
    seal_command.add_argument("--sender")
    seal_command.add_argument("--json-lines", action="store_true")
    open_command = commands.add_parser("open", help="open outer payloads from standard input")
    open_command.add_argument("--store", required=True)
    open_command.add_argument("--json-lines", action="store_true")
    vectors_command = commands.add_parser("vectors", help="check envelope-v1.json")
    vectors_command.add_argument("file")
    bench_command = commands.add_parser("bench", help="seal/open rates for the payload on standard input")
    bench_command.add_argument("--seconds", type=float, default=1.0)
    arguments = parser.parse_args(argv)

    if arguments.command == "vectors":
        passed, failed = check_vectors(arguments.file)
        print(f"{passed} passed, {failed} failed")
        return 0 if failed == 0 else 1
    if arguments.command == "bench":
        print(json.dumps(bench(json.load(sys.stdin), arguments.seconds)))
        return 0
    if arguments.command == "seal":
        recipient = _read_json(arguments.to)
        sender = _read_json(arguments.sender) if arguments.sender else None
        for payload in _inputs(arguments.json_lines):
            print(compact(seal_payload(payload, recipient, sender)).decode("utf-8"))
        return 0
    ring = KeyRing.from_store(arguments.store)
    status = 0
    for outer in _inputs(arguments.json_lines):
        result = open_payload(outer, ring)
        status = 1 if result["status"] == "degraded" else status
        print(compact(result).decode("utf-8"))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
