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
import os
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


def sniff(head: bytes) -> str | None:
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
    if head[:3] == b"ID3" or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0 and head[1] & 0x06):
        return "audio/mpeg"
    if head[:4] in (b"\x00\x00\x01\xba", b"\x00\x00\x01\xb3"):
        return "video/mpeg"
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in (b"M4A ", b"M4B ", b"M4P "):
            return "audio/mp4"
        if brand in (b"isom", b"iso2", b"iso4", b"iso5", b"mp41", b"mp42", b"avc1", b"M4V ", b"dash"):
            return "video/mp4"
    return None


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


def check_descriptor(descriptor: dict) -> tuple[bytes, str, int, int, bytes]:
    if set(descriptor) != {"url", "key", "type", "length", "size", "sha256"}:
        raise MediaError("media-integrity", "the descriptor's members are wrong")
    if not isinstance(descriptor["url"], str) or not descriptor["url"].startswith("https://"):
        raise MediaError("media-insecure-url", "not https")
    media_type = descriptor["type"]
    if media_type not in TYPES:
        raise MediaError("media-integrity", "unknown type")
    length, size = descriptor["length"], descriptor["size"]
    if not isinstance(length, int) or length <= 0:
        raise MediaError("media-integrity", "bad length")
    if length > TYPES[media_type][1]:
        raise MediaError("media-too-large", "over the type's limit")
    if size != object_size(length):
        raise MediaError("media-integrity", "size does not match length")
    try:
        key, digest = unb64url(descriptor["key"]), unb64url(descriptor["sha256"])
    except (ValueError, TypeError):
        raise MediaError("media-integrity", "bad base64url") from None
    if len(key) != 32 or len(digest) != 32:
        raise MediaError("media-integrity", "bad key or hash length")
    return key, media_type, length, size, digest


def open_object(obj: bytes, descriptor: dict) -> bytes:
    key, media_type, length, size, digest = check_descriptor(descriptor)
    if len(obj) > size:
        raise MediaError("media-too-large", "longer than described")
    if len(obj) < size:
        raise MediaError("media-integrity", "shorter than described")
    if not hmac.compare_digest(hashlib.sha256(obj).digest(), digest):
        raise MediaError("media-integrity", "hash mismatch")
    if obj[:4] != MAGIC:
        raise MediaError("media-integrity", "bad magic")
    cipher = ChaCha20Poly1305(stream_key(key, obj[4:HEADER]))
    padded = padme(length)
    count = chunk_count(padded)
    out, offset = [], HEADER
    for index in range(count):
        plain_len = CHUNK if index < count - 1 else padded - CHUNK * (count - 1)
        piece = obj[offset : offset + plain_len + TAG]
        offset += plain_len + TAG
        try:
            out.append(cipher.decrypt(nonce(index, index == count - 1), piece, aad(media_type, length)))
        except Exception:
            raise MediaError("media-integrity", f"chunk {index} does not open") from None
    plain = b"".join(out)
    if any(plain[length:]):
        raise MediaError("media-integrity", "padding is not zeros")
    media = plain[:length]
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
    return passed, failed


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
