#!/usr/bin/env python3
"""Slow clients (slowloris) for the gateway's tests: connections that send part of a request head,
then one byte every --interval seconds, never finishing it.

They run in a process of their own, so that the test runner does not hold their sockets: a
process with more than a thousand descriptors open crashed Foundation's Process.run in another
test running at the same moment.

Prints `opened N` once the connections are made, then `open N` (how many the server has not
closed) every 0.2 s, until --duration passes or standard input closes. With --reopen, every
connection the server closed is opened again from its address at each report, as an attacker
who keeps the pressure on does.

    python slow_clients.py --port 8080 --count 1100 --sources 127.0.0.1 --interval 2 --duration 60 [--reopen]
"""

import argparse
import errno
import os
import select
import socket
import sys
import time

HEAD = b"GET /healthz HTTP/1.1\r\nHost: gateway\r\nX-Slow: "


def connect(port: int, source: str) -> socket.socket | None:
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    client.settimeout(1)
    try:
        client.bind((source, 0))
        client.connect(("127.0.0.1", port))
        client.sendall(HEAD)
    except OSError:
        client.close()
        return None
    client.setblocking(False)
    return client


def is_open(client: socket.socket) -> bool:
    """Whether the server has not closed it: a read finds nothing waiting, not the end."""
    try:
        return client.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--sources", required=True, help="loopback addresses to connect from, comma-separated")
    parser.add_argument("--interval", type=float, default=2)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--reopen", action="store_true", help="open again each connection the server closed")
    arguments = parser.parse_args()
    sources = arguments.sources.split(",")
    slots = [(sources[index % len(sources)], connect(arguments.port, sources[index % len(sources)]))
             for index in range(arguments.count)]
    print(f"opened {sum(1 for _, client in slots if client is not None)}", flush=True)
    end = time.monotonic() + arguments.duration
    next_byte = time.monotonic() + arguments.interval
    while time.monotonic() < end:
        open_now = [client is not None and is_open(client) for _, client in slots]
        print(f"open {sum(open_now)}", flush=True)
        if arguments.reopen:
            for index, (source, client) in enumerate(slots):
                if not open_now[index]:
                    if client is not None:
                        client.close()
                    slots[index] = (source, connect(arguments.port, source))
        clients = [client for _, client in slots if client is not None]
        if time.monotonic() >= next_byte:
            next_byte += arguments.interval
            for client in clients:
                try:
                    client.send(b"a")
                except OSError as error:
                    if error.errno not in (errno.EAGAIN, errno.EPIPE, errno.ECONNRESET):
                        raise
        # Stop at once when the test that started us has gone (its end of standard input closes).
        ready, _, _ = select.select([sys.stdin], [], [], 0.2)
        if ready and not os.read(sys.stdin.fileno(), 4096):
            break


if __name__ == "__main__":
    main()
