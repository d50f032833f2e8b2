"""An HTTPS front for the gateway in tests: TLS terminated on 127.0.0.1, the bytes relayed as
they are to the gateway's plain listener, as nginx or a load balancer does in production.

The gateway's port is read from --upstream-file at each connection, so that the front can
start first and its URL go into the gateway's configuration as `relay.public_url`.

    python tls_front.py serve --upstream-file PORT_FILE --ready ready.json --cert-dir DIR
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import ssl
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mock_apns import run_until_released, self_signed_certificate  # noqa: E402


def pump(source: socket.socket, target: socket.socket) -> None:
    """Copies `source` to `target` until `source` ends, then ends `target`'s writing side."""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        try:
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def relay(client: socket.socket, context: ssl.SSLContext, upstream_file: str) -> None:
    try:
        secure = context.wrap_socket(client, server_side=True)
    except (ssl.SSLError, OSError):
        client.close()
        return
    try:
        with open(upstream_file) as handle:
            port = int(handle.read().strip())
        upstream = socket.create_connection(("127.0.0.1", port), timeout=30)
    except (OSError, ValueError):
        secure.close()
        return
    back = threading.Thread(target=pump, args=(upstream, secure), daemon=True)
    back.start()
    pump(secure, upstream)
    back.join(timeout=30)
    secure.close()
    upstream.close()


def serve(arguments) -> None:
    certificate, key = self_signed_certificate(arguments.cert_dir, stem="tls-front")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, key)
    listener = socket.create_server(("127.0.0.1", 0))
    with open(arguments.ready + ".tmp", "w") as handle:
        json.dump({"port": listener.getsockname()[1], "certificate": certificate}, handle)
    os.replace(arguments.ready + ".tmp", arguments.ready)

    def accept() -> None:
        while True:
            client, _ = listener.accept()
            threading.Thread(target=relay, args=(client, context, arguments.upstream_file), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    run_until_released(arguments.lifetime)


def main() -> None:
    parser = argparse.ArgumentParser(prog="tls_front.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("serve")
    command.add_argument("--upstream-file", required=True)
    command.add_argument("--ready", required=True)
    command.add_argument("--cert-dir", required=True)
    command.add_argument("--lifetime", type=float, default=300)
    serve(parser.parse_args())


if __name__ == "__main__":
    main()
