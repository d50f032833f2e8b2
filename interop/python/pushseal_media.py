"""An independent implementation of PushSeal media objects (docs/media-v1.md), for interop tests.

Written from the specification alone, on `cryptography` (HKDF-SHA256, ChaCha20-Poly1305):

    python pushseal_media.py seal FILE --out OBJECT --url URL     prints the descriptor
    python pushseal_media.py open OBJECT --descriptor D.json --out FILE
    python pushseal_media.py vectors media-v1.json                 "N passed, M failed"
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import ipaddress
import os
import re
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MAGIC = b"PSM1"
LABEL = b"pushseal media v1"
CHUNK = 65536
TAG = 16
HEADER = 36
# type: (extension, limit in bytes)
TYPES = {
    "image/jpeg": ("jpg", 10_000_000), "image/png": ("png", 10_000_000), "image/gif": ("gif", 10_000_000),
    "audio/aiff": ("aiff", 5_000_000), "audio/wav": ("wav", 5_000_000), "audio/mpeg": ("mp3", 5_000_000),
    "audio/mp4": ("m4a", 5_000_000), "video/mpeg": ("mpg", 50_000_000), "video/mp4": ("mp4", 50_000_000),
    "video/avi": ("avi", 50_000_000),
}


class MediaError(Exception):
    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    if "=" in text or len(text) % 4 == 1:
        raise ValueError("not canonical base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64url(data) != text:
        raise ValueError("not canonical base64url")
    return data


def padme(length: int) -> int:
    if length < 2:
        return length
    e = length.bit_length() - 1
    s = e.bit_length()
    mask = (1 << (e - s)) - 1
    return (length + mask) & ~mask


def chunk_count(padded: int) -> int:
    return max(1, -(-padded // CHUNK))


def object_size(length: int) -> int:
    padded = padme(length)
    return HEADER + padded + TAG * chunk_count(padded)


AUDIO_BRANDS = (b"M4A ", b"M4B ", b"M4P ")
VIDEO_BRANDS = (b"isom", b"iso2", b"iso4", b"iso5", b"mp41", b"mp42", b"avc1", b"M4V ", b"dash")


def mpeg_audio_frame(head: bytes) -> bool:
    """The frame sync, and no reserved version, reserved layer, bad bitrate or reserved rate."""
    if len(head) < 3 or head[0] != 0xFF or head[1] & 0xE0 != 0xE0:
        return False
    version, layer = (head[1] >> 3) & 3, (head[1] >> 1) & 3
    bitrate, rate = head[2] >> 4, (head[2] >> 2) & 3
    return version != 1 and layer != 0 and bitrate != 15 and rate != 3


def sniff(head: bytes) -> str | None:
    head = head[:16]
    if head[4:8] == b"ftyp":
        size = int.from_bytes(head[:4], "big")
        if not 16 <= size <= 4096 or size % 4:
            return None
        if head[8:12] in AUDIO_BRANDS:
            return "audio/mp4"
        return "video/mp4" if head[8:12] in VIDEO_BRANDS else None
    if head[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC"):
        return "audio/aiff"
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio/wav"
    if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
        return "video/avi"
    if head[:3] == b"ID3" or mpeg_audio_frame(head):
        return "audio/mpeg"
    if head[:4] in (b"\x00\x00\x01\xba", b"\x00\x00\x01\xb3"):
        return "video/mpeg"
    return None


def url_allowed(url: str) -> bool:
    """media-v1's URL rule, as the specification words it."""
    if not 1 <= len(url.encode()) <= 2048 or any(not 0x21 <= ord(c) <= 0x7E for c in url):
        return False
    scheme, colon, rest = url.partition(":")
    if not colon or scheme.lower() != "https" or not rest.startswith("//"):
        return False
    authority = re.split(r"[/?#]", rest[2:], maxsplit=1)[0].lower()
    if "@" in authority:
        return False
    if authority.startswith("["):
        host, _, after = authority[1:].partition("]")
        if after and not after.startswith(":"):
            return False
        port = after[1:] if after else None
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return False
        if not host or not set(host) <= set("0123456789abcdef:."):
            return False
    else:
        host, _, port = authority.partition(":") if ":" in authority else (authority, "", None)
        if port is not None and ":" in port:
            return False
        if not host or len(host) > 253 or not re.fullmatch(r"[a-z0-9.-]+", host):
            return False
        labels = host.split(".")
        last = next((label for label in reversed(labels) if label), "")
        if last.isdigit() or last.startswith("0x"):
            if len(labels) != 4 or not all(re.fullmatch(r"0|[1-9][0-9]{0,2}", x) and int(x) <= 255 for x in labels):
                return False
    return port is None or (re.fullmatch(r"[0-9]{1,5}", port) is not None and 1 <= int(port) <= 65535)


def aad(media_type: str, length: int) -> bytes:
    return LABEL + b"\0" + media_type.encode() + b"\0" + length.to_bytes(8, "big")


def nonce(index: int, final: bool) -> bytes:
    return index.to_bytes(11, "big") + (b"\x01" if final else b"\x00")


def stream_key(key: bytes, salt: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=LABEL).derive(key)


def seal(media: bytes, media_type: str, url: str, key: bytes | None = None, salt: bytes | None = None):
    key = key or os.urandom(32)
    salt = salt or os.urandom(32)
    padded = media + b"\0" * (padme(len(media)) - len(media))
    count = chunk_count(len(padded))
    cipher = ChaCha20Poly1305(stream_key(key, salt))
    parts = [MAGIC, salt]
    for index in range(count):
        piece = padded[index * CHUNK : (index + 1) * CHUNK]
        parts.append(cipher.encrypt(nonce(index, index == count - 1), piece, aad(media_type, len(media))))
    obj = b"".join(parts)
    descriptor = {"url": url, "key": b64url(key), "type": media_type, "length": len(media), "size": len(obj),
                  "sha256": b64url(hashlib.sha256(obj).digest())}
    return descriptor, obj


def integer(value) -> int | None:
    """A JSON integer: a number without a fraction or an exponent (json gives those as float)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def canonical_32(value) -> bytes | None:
    try:
        data = unb64url(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return data if data is not None and len(data) == 32 else None


def check_descriptor(descriptor: dict) -> tuple[bytes, str, int, int, bytes]:
    """In media-v1's order: other members, url, key, type, length, the limit, size, sha256."""
    if any(name not in ("url", "key", "type", "length", "size", "sha256") for name in descriptor):
        raise MediaError("media-integrity", "a member that is not the descriptor's")
    if not isinstance(descriptor.get("url"), str):
        raise MediaError("media-integrity", "no url string")
    if not url_allowed(descriptor["url"]):
        raise MediaError("media-insecure-url", "the URL rule refuses it")
    key = canonical_32(descriptor.get("key"))
    if key is None:
        raise MediaError("media-integrity", "bad key")
    media_type = descriptor.get("type")
    if not isinstance(media_type, str) or media_type not in TYPES:
        raise MediaError("media-integrity", "unknown type")
    length = integer(descriptor.get("length"))
    if length is None or length < 1:
        raise MediaError("media-integrity", "bad length")
    if length > TYPES[media_type][1]:
        raise MediaError("media-too-large", "over the type's limit")
    size = integer(descriptor.get("size"))
    if size != object_size(length):
        raise MediaError("media-integrity", "size does not match length")
    digest = canonical_32(descriptor.get("sha256"))
    if digest is None:
        raise MediaError("media-integrity", "bad sha256")
    return key, media_type, length, size, digest


def open_object(obj: bytes, descriptor: dict) -> bytes:
    """In media-v1's order: a byte past the size as it arrives; the magic; each chunk and its
    padding as it opens; then the length, the hash, and last the type."""
    key, media_type, length, size, digest = check_descriptor(descriptor)
    if len(obj) > size:
        raise MediaError("media-too-large", "longer than described")
    if obj[:4] != MAGIC[: len(obj)]:
        raise MediaError("media-integrity", "bad magic")
    padded = padme(length)
    count = chunk_count(padded)
    cipher = ChaCha20Poly1305(stream_key(key, obj[4:HEADER])) if len(obj) >= HEADER else None
    out, offset = [], HEADER
    for index in range(count):
        plain_len = CHUNK if index < count - 1 else padded - CHUNK * (count - 1)
        piece = obj[offset : offset + plain_len + TAG]
        if cipher is None or len(piece) < plain_len + TAG:
            break
        offset += plain_len + TAG
        try:
            plain = cipher.decrypt(nonce(index, index == count - 1), piece, aad(media_type, length))
        except Exception:
            raise MediaError("media-integrity", f"chunk {index} does not open") from None
        media_end = max(0, min(len(plain), length - index * CHUNK))
        if any(plain[media_end:]):
            raise MediaError("media-integrity", "padding is not zeros")
        out.append(plain[:media_end])
    if len(obj) < size:
        raise MediaError("media-integrity", "shorter than described")
    if not hmac.compare_digest(hashlib.sha256(obj).digest(), digest):
        raise MediaError("media-integrity", "hash mismatch")
    media = b"".join(out)
    if sniff(media[:16]) != media_type:
        raise MediaError("media-type-mismatch", "not the declared type")
    return media


def edited(vector: dict, positive: list) -> bytes:
    if "object" in vector:
        return unb64url(vector["object"])
    obj = bytearray(unb64url(positive[vector["from"]]["object"]))
    if "flip" in vector:
        obj[vector["flip"]] ^= 1
    if "truncate" in vector:
        obj = obj[: vector["truncate"]]
    if "append" in vector:
        obj += b"\0" * vector["append"]
    if "copy" in vector:
        copy = vector["copy"]
        obj[copy["target"] : copy["target"] + copy["length"]] = obj[copy["source"] : copy["source"] + copy["length"]]
    return bytes(obj)


def check_vectors(path: str) -> tuple[int, int]:
    document = json.load(open(path))
    passed = failed = 0
    positive = document["positive"]
    for vector in positive:
        descriptor = vector["descriptor"]
        obj = unb64url(vector["object"])
        media = open_object(obj, descriptor)
        expected = unb64url(vector["media"]) if "media" in vector else None
        ok = media == expected if expected is not None else hashlib.sha256(media).hexdigest() == vector["media_sha256"]
        resealed, again = seal(media, descriptor["type"], descriptor["url"], unb64url(descriptor["key"]),
                               bytes.fromhex(vector["salt"]))
        ok = ok and again == obj and resealed == descriptor
        passed, failed = (passed + 1, failed) if ok else (passed, failed + 1)
    for vector in document["negative"]:
        descriptor = vector.get("descriptor") or positive[vector["from"]]["descriptor"]
        try:
            open_object(edited(vector, positive), descriptor)
            failed += 1
        except MediaError as error:
            passed, failed = (passed + 1, failed) if error.reason == vector["reason"] else (passed, failed + 1)
    for vector in document["descriptors"]:
        try:
            check_descriptor(json.loads(vector["descriptor_text"], object_pairs_hook=_unique))
            reason = None
        except MediaError as error:
            reason = error.reason
        passed, failed = (passed + 1, failed) if reason == vector["reason"] else (passed, failed + 1)
    for vector in document["sniff"]:
        found = sniff(bytes.fromhex(vector["head"]))
        passed, failed = (passed + 1, failed) if found == vector["type"] else (passed, failed + 1)
    return passed, failed


def _unique(pairs: list) -> dict:
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        raise ValueError("duplicate member")
    return dict(pairs)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="pushseal_media.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    seal_command = commands.add_parser("seal")
    seal_command.add_argument("file")
    seal_command.add_argument("--out", required=True)
    seal_command.add_argument("--url", required=True)
    open_command = commands.add_parser("open")
    open_command.add_argument("object")
    open_command.add_argument("--descriptor", required=True)
    open_command.add_argument("--out", required=True)
    vectors_command = commands.add_parser("vectors")
    vectors_command.add_argument("file")
    arguments = parser.parse_args(argv)
    if arguments.command == "seal":
        media = open(arguments.file, "rb").read()
        media_type = sniff(media[:16])
        if media_type is None:
            print("pushseal_media: not a type a notification can attach", file=sys.stderr)
            return 2
        descriptor, obj = seal(media, media_type, arguments.url)
        with open(arguments.out, "xb") as handle:
            handle.write(obj)
        print(json.dumps(descriptor, separators=(",", ":")))
        return 0
    if arguments.command == "open":
        descriptor = json.load(open(arguments.descriptor))
        descriptor = descriptor.get("media", descriptor)
        try:
            media = open_object(open(arguments.object, "rb").read(), descriptor)
        except MediaError as error:
            print(json.dumps({"error": error.reason}))
            return 1
        with open(arguments.out, "xb") as handle:
            handle.write(media)
        print(json.dumps({"file": arguments.out, "type": descriptor["type"], "length": len(media)}))
        return 0
    passed, failed = check_vectors(arguments.file)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
