"""A local HTTPS server for PushSeal's media tests: serves media objects, and misbehaves on cue.

HTTPS on 127.0.0.1 with a self-signed certificate made at start (the same maker as the mock
APNs). Paths, where NAME is a file in --root:

    /files/NAME           the file, with its Content-Length
    /redirect/NAME        302 to /files/NAME (https: must be followed)
    /redirect-http/NAME   302 to http://…/files/NAME (must be refused)
    /redirect-loop        302 to itself, forever (must give up)
    /missing              404
    /stall/NAME           the headers and 100 bytes, then nothing for 60 s
    /longer/NAME          the file and 100 more bytes, with no Content-Length
    /lying-length/NAME    Content-Length 10 bytes over the file's length, then the file
    /short-length/NAME    Content-Length 10 bytes under the file's length, then that much
    /chunked/NAME         the file in the chunked transfer coding, with an extension and a trailer
    /relative-redirect/NAME  302 to ../files/NAME (a relative reference)
    /interim/NAME         an interim 100 Continue, then the file
    /smuggle/NAME         both Content-Length and Transfer-Encoding: chunked (must be refused)
    /bearer/NAME          the file to `Authorization: Bearer <the text of NAME.capability>`
                          alone, else 404, as the gateway serves content to fetch
    /redirect-bearer/NAME 302 to /bearer/NAME (a reference's fetch must not follow it)
    /cut/NAME             the file's Content-Length, half the file, then the connection closes
    /redirect-bad/CASE/NAME  302 to a target that breaks the media URL rule (CASE: userinfo,
                          short-address, port-zero, underscore-host, long-target)

A second listener, on `wrong_name_port` in the ready file, serves the same paths with a
certificate for wrong-name.invalid only; `both_certificates` names a file trusting both.

    python media_server.py serve --root DIR --ready ready.json --cert-dir DIR
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import ssl
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mock_apns import run_until_released, self_signed_certificate  # noqa: E402


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = "."

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def file(self, name: str) -> bytes | None:
        path = os.path.join(self.root, os.path.basename(name))
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            return handle.read()

    def send(self, status: int, body: bytes, length: int | None = None, headers: dict | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if length is None:
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.write(body)

    def send_chunked(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for index, start in enumerate(range(0, len(body), 9_000)):
            piece = body[start : start + 9_000]
            extension = ";part=one" if index == 0 else ""
            self.wfile.write(b"%x%s\r\n%s\r\n" % (len(piece), extension.encode(), piece))
        self.wfile.write(b"0\r\nX-Trailer: done\r\n\r\n")

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        parts = self.path.strip("/").split("/", 1)
        kind, name = parts[0], parts[1] if len(parts) > 1 else ""
        port = self.server.server_address[1]
        if kind == "relative-redirect":
            return self.send(302, b"", 0, {"Location": f"../files/{name}"})
        if kind == "redirect-loop":
            return self.send(302, b"", 0, {"Location": "/redirect-loop"})
        if kind == "redirect":
            return self.send(302, b"", 0, {"Location": f"/files/{name}"})
        if kind == "redirect-bearer":
            return self.send(302, b"", 0, {"Location": f"/bearer/{name}"})
        if kind == "redirect-http":
            return self.send(302, b"", 0, {"Location": f"http://127.0.0.1:{port}/files/{name}"})
        if kind == "redirect-bad":
            case, _, name = name.partition("/")
            targets = {
                "userinfo": f"https://user:pass@127.0.0.1:{port}/files/{name}",
                "short-address": f"https://127.1:{port}/files/{name}",
                "port-zero": f"https://127.0.0.1:0/files/{name}",
                "underscore-host": f"https://media_cdn.example:{port}/files/{name}",
                # Relative, so that only the resolved URL is over 4096 characters.
                "long-target": f"/files/{name}?" + "q" * 4097,
            }
            return self.send(302, b"", 0, {"Location": targets[case]})
        body = self.file(name) if name else None
        if body is None:
            return self.send(404, b"not found", 9)
        if kind == "files":
            return self.send(200, body, len(body))
        if kind == "bearer":
            capability = self.file(name + ".capability")
            presented = self.headers.get("Authorization", "")
            if capability is None or presented != "Bearer " + capability.decode().strip():
                return self.send(404, b"not found", 9)
            return self.send(200, body, len(body))
        if kind == "stall":
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[:100])
            self.wfile.flush()
            time.sleep(60)
            return None
        if kind == "longer":
            return self.send(200, body + b"\0" * 100, None)
        if kind == "lying-length":
            return self.send(200, body, len(body) + 10)
        if kind == "short-length":
            return self.send(200, body[:-10], len(body) - 10)
        if kind == "chunked":
            return self.send_chunked(body)
        if kind == "interim":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            return self.send(200, body, len(body))
        if kind == "smuggle":
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
            return None
        if kind == "cut":
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.close_connection = True
            return None
        return self.send(404, b"not found", 9)


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        # A client that stops reading on purpose (a refused length, a refused certificate) is a
        # scenario under test, not a server fault: only anything else is printed.
        if not isinstance(sys.exc_info()[1], (ConnectionError, ssl.SSLError)):
            super().handle_error(request, client_address)


def listen(certificate: str, key: str) -> http.server.ThreadingHTTPServer:
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    return server


def serve(arguments) -> None:
    Handler.root = arguments.root
    certificate, key = self_signed_certificate(arguments.cert_dir)
    server = listen(certificate, key)
    wrong_certificate, wrong_key = self_signed_certificate(
        arguments.cert_dir, names=("wrong-name.invalid",), address=False, stem="wrong-name"
    )
    wrong_name = listen(wrong_certificate, wrong_key)
    threading.Thread(target=wrong_name.serve_forever, daemon=True).start()
    both = os.path.join(arguments.cert_dir, "both-certificates.pem")
    with open(both, "wb") as handle:
        for path in (certificate, wrong_certificate):
            with open(path, "rb") as part:
                handle.write(part.read())
    with open(arguments.ready + ".tmp", "w") as handle:
        json.dump(
            {
                "port": server.server_address[1],
                "certificate": certificate,
                "wrong_name_port": wrong_name.server_address[1],
                "both_certificates": both,
            },
            handle,
        )
    os.replace(arguments.ready + ".tmp", arguments.ready)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    run_until_released(arguments.lifetime)


def main() -> None:
    parser = argparse.ArgumentParser(prog="media_server.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("serve")
    command.add_argument("--root", required=True)
    command.add_argument("--ready", required=True)
    command.add_argument("--cert-dir", required=True)
    command.add_argument("--lifetime", type=float, default=300)
    serve(parser.parse_args())


if __name__ == "__main__":
    main()
