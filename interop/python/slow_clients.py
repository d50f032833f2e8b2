#!/usr/bin/env python3
"""Slow clients (slowloris) for the gateway's tests: connections that send part of a request head,
then one byte every --interval seconds, never finishing it. With --pipeline PATH, slow readers
instead: each connection, its receive buffer small, sends request after request for PATH without
waiting for the answers (HTTP/1.1 pipelining), and reads --read-bytes of them every --interval
seconds, so that the server always sees progress and always has an answer to write.

They run in a process of their own, so that the test runner does not hold their sockets: a
process with more than a thousand descriptors open crashed Foundation's Process.run in another
test running at the same moment.

Prints `opened N` once the connections are made, then `open N` (how many the server has not
closed) every 0.2 s, until --duration passes or standard input closes. With --reopen, every
connection the server closed is opened again from its address at each report, as an attacker
who keeps the pressure on does.

    python slow_clients.py --port 8080 --count 1100 --sources 127.0.0.1 --interval 2 --duration 60 [--reopen]
    python slow_clients.py --port 8080 --count 60 --sources 127.0.0.1 --pipeline /healthz --interval 10
"""

import argparse
import errno
import os
import select
import socket
import sys
import time

HEAD = b"GET /healthz HTTP/1.1\r\nHost: gateway\r\nX-Slow: "


# A pipelining reader's receive buffer: small, so that the server's answers wait in its own; and
# its send buffer, small too, so that a thousand of them queue kilobytes of requests each, not the
# megabytes that exhaust the kernel's TCP memory (which then resets every connection of the host,
# the legitimate client's too).
PIPELINE_RECEIVE_BUFFER = 4096
PIPELINE_SEND_BUFFER = 65536


def connect(port: int, source: str, pipeline: bytes | None = None) -> socket.socket | None:
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    client.settimeout(1)
    try:
        if pipeline is not None:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, PIPELINE_RECEIVE_BUFFER)
            client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, PIPELINE_SEND_BUFFER)
        client.bind((source, 0))
        client.connect(("127.0.0.1", port))
        if pipeline is None:
            client.sendall(HEAD)
    except OSError:
        client.close()
        return None
    client.setblocking(False)
    if pipeline is not None:
        send_requests(client, pipeline)
    return client


def send_requests(client: socket.socket, request: bytes) -> None:
    """As many pipelined copies of `request` as the socket takes now."""
    try:
        while client.send(request * 16) > 0:
            pass
    except OSError:
        pass


def is_open(client: socket.socket) -> bool:
    """Whether the server has not closed it: TCP's state is still ESTABLISHED (answers waiting to
    be read do not hide a close behind them)."""
    try:
        return client.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] == TCP_ESTABLISHED
    except OSError:
        return False


# tcp_info's first byte, the connection's state, while both ends keep it open.
TCP_ESTABLISHED = 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--sources", required=True, help="loopback addresses to connect from, comma-separated")
    parser.add_argument("--interval", type=float, default=2)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--reopen", action="store_true", help="open again each connection the server closed")
    parser.add_argument("--pipeline", metavar="PATH", help="pipeline GET PATH and read slowly, instead of a slow head")
    parser.add_argument("--read-bytes", type=int, default=8192, help="with --pipeline: bytes read each --interval")
    arguments = parser.parse_args()
    sources = arguments.sources.split(",")
    pipeline = None
    if arguments.pipeline is not None:
        pipeline = f"GET {arguments.pipeline} HTTP/1.1\r\nHost: gateway\r\n\r\n".encode()
    slots = [(sources[index % len(sources)], connect(arguments.port, sources[index % len(sources)], pipeline))
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
                    slots[index] = (source, connect(arguments.port, source, pipeline))
        clients = [client for _, client in slots if client is not None]
        if time.monotonic() >= next_byte:
            next_byte += arguments.interval
            for client in clients:
                try:
                    if pipeline is None:
                        client.send(b"a")
                    else:
                        client.recv(arguments.read_bytes)
                        send_requests(client, pipeline)
                except OSError as error:
                    if error.errno not in (errno.EAGAIN, errno.EPIPE, errno.ECONNRESET):
                        raise
        # Stop at once when the test that started us has gone (its end of standard input closes).
        ready, _, _ = select.select([sys.stdin], [], [], 0.2)
        if ready and not os.read(sys.stdin.fileno(), 4096):
            break


if __name__ == "__main__":
    main()
