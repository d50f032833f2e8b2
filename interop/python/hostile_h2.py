#!/usr/bin/env python3
"""An HTTP/2 server over TLS that misbehaves on purpose, for the client's hardening tests.

It writes frames itself (hyperframe, hpack) rather than through h2, because what it sends is what
a conforming server library refuses to send. Each --mode is one way an APNs peer can try to hang
or bloat a client:

  no-streams        SETTINGS_MAX_CONCURRENT_STREAMS 0; acknowledges PINGs, answers nothing
  zero-after-first  answers the first request 200, then lowers its stream limit to 0
  deaf              grants large windows, then stops reading; every 2 s sends a PING, a
                    WINDOW_UPDATE of 1 or an empty SETTINGS
  header-flood      answers each request with `:status 100` blocks full of new header names
  push-promise      answers the first request with a PUSH_PROMISE (push is disabled)
  unopened-headers  answers with HEADERS on a stream the client never opened

Like mock_apns.py it writes --ready (port, certificate) once listening, logs one JSON line per
request it saw to --log, and stops when standard input closes or --lifetime passes.
"""

import argparse
import asyncio
import json
import os
import socket
import ssl
import sys

import hpack
from hyperframe.frame import (
    DataFrame,
    Frame,
    HeadersFrame,
    PingFrame,
    PushPromiseFrame,
    RstStreamFrame,
    SettingsFrame,
    WindowUpdateFrame,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mock_apns import self_signed_certificate, serve_until_done  # noqa: E402

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# The most header bytes sent on one stream before giving up on a client that never resets it.
FLOOD_LIMIT = 8 * 1024 * 1024


class Connection:
    def __init__(self, mode: str, reader, writer, log) -> None:
        self.mode = mode
        self.reader = reader
        self.writer = writer
        self.log = log
        self.encoder = hpack.Encoder()
        self.decoder = hpack.Decoder()
        self.requests = 0
        self.reset_streams: set[int] = set()

    def send(self, frame: Frame) -> None:
        if not self.writer.is_closing():
            self.writer.write(frame.serialize())

    def headers(self, stream_id: int, fields: list[tuple[str, str]], end_stream: bool) -> None:
        frame = HeadersFrame(stream_id, self.encoder.encode(fields))
        frame.flags.add("END_HEADERS")
        if end_stream:
            frame.flags.add("END_STREAM")
        self.send(frame)

    def answer(self, stream_id: int) -> None:
        self.headers(stream_id, [(":status", "200"), ("apns-id", "00000000-0000-0000-0000-%012d" % stream_id)], True)

    async def frames(self):
        buffer = b""
        while True:
            while len(buffer) < 9:
                data = await self.reader.read(65536)
                if not data:
                    return
                buffer += data
            frame, length = Frame.parse_frame_header(memoryview(buffer[:9]))
            while len(buffer) < 9 + length:
                data = await self.reader.read(65536)
                if not data:
                    return
                buffer += data
            frame.parse_body(memoryview(buffer[9 : 9 + length]))
            buffer = buffer[9 + length :]
            yield frame

    def record(self, stream_id: int) -> None:
        self.requests += 1
        self.log.write(json.dumps({"stream": stream_id, "request": self.requests}) + "\n")
        self.log.flush()

    async def run(self) -> None:
        preface = await self.reader.readexactly(len(PREFACE))
        if preface != PREFACE:
            return
        limit = 0 if self.mode == "no-streams" else 100
        settings = SettingsFrame(0, settings={SettingsFrame.MAX_CONCURRENT_STREAMS: limit})
        if self.mode == "deaf":
            settings.settings[SettingsFrame.INITIAL_WINDOW_SIZE] = 1 << 24
            settings.settings[SettingsFrame.MAX_CONCURRENT_STREAMS] = 1000
        self.send(settings)
        if self.mode == "deaf":
            self.send(WindowUpdateFrame(0, window_increment=1 << 30))
        async for frame in self.frames():
            if isinstance(frame, SettingsFrame) and "ACK" not in frame.flags:
                self.send(SettingsFrame(0, flags=["ACK"]))
                if self.mode == "deaf":
                    await self.deaf()
                    return
            elif isinstance(frame, PingFrame) and "ACK" not in frame.flags:
                self.send(PingFrame(0, opaque_data=frame.opaque_data, flags=["ACK"]))
            elif isinstance(frame, RstStreamFrame):
                self.reset_streams.add(frame.stream_id)
            elif isinstance(frame, (HeadersFrame, DataFrame)) and "END_STREAM" in frame.flags:
                self.record(frame.stream_id)
                await self.respond(frame.stream_id)
            await self.writer.drain()

    async def respond(self, stream_id: int) -> None:
        if self.mode == "zero-after-first" and self.requests == 1:
            self.answer(stream_id)
            self.send(SettingsFrame(0, settings={SettingsFrame.MAX_CONCURRENT_STREAMS: 0}))
        elif self.mode == "header-flood":
            # In the background, so that the loop that reads frames sees the client's RST_STREAM.
            asyncio.get_running_loop().create_task(self.flood(stream_id))
        elif self.mode == "push-promise" and self.requests == 1:
            promise = PushPromiseFrame(stream_id, promised_stream_id=2)
            promise.data = self.encoder.encode(
                [(":method", "GET"), (":scheme", "https"), (":authority", "localhost"), (":path", "/pushed")]
            )
            promise.flags.add("END_HEADERS")
            self.send(promise)
        elif self.mode == "unopened-headers" and self.requests == 1:
            self.answer(stream_id + 98)

    async def flood(self, stream_id: int) -> None:
        """`:status 100` blocks of 40 new header names each, until the client resets the stream."""
        sent = 0
        block = 0
        while sent < FLOOD_LIMIT and stream_id not in self.reset_streams and not self.writer.is_closing():
            fields = [(":status", "100")] + [(f"x-flood-{stream_id}-{block}-{n}", "v" * 100) for n in range(40)]
            block += 1
            encoded = self.encoder.encode(fields, huffman=False)
            frame = HeadersFrame(stream_id, encoded)
            frame.flags.add("END_HEADERS")
            self.send(frame)
            sent += len(encoded)
            await self.writer.drain()
            await asyncio.sleep(0)

    async def deaf(self) -> None:
        """Reads nothing more, and keeps sending frames that carry no answer."""
        turn = 0
        while not self.writer.is_closing():
            await asyncio.sleep(2)
            turn += 1
            if turn % 3 == 0:
                self.send(PingFrame(0, opaque_data=turn.to_bytes(8, "big")))
            elif turn % 3 == 1:
                self.send(WindowUpdateFrame(0, window_increment=1))
            else:
                self.send(SettingsFrame(0))


async def serve(arguments) -> None:
    certificate, key = self_signed_certificate(arguments.cert_dir, stem="hostile-h2")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, key)
    context.set_alpn_protocols(["h2"])
    log = open(arguments.log, "a")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # A small receive buffer, so that a client writing to a peer that stops reading soon finds
    # its socket full.
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    listener.bind(("127.0.0.1", 0))

    async def handle(reader, writer) -> None:
        try:
            await Connection(arguments.mode, reader, writer, log).run()
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()

    # A StreamReader limit of 16 KiB: asyncio stops reading the socket once that much is buffered.
    server = await asyncio.start_server(handle, sock=listener, ssl=context, limit=16 * 1024)
    await serve_until_done(server, listener.getsockname()[1], certificate, arguments.ready, arguments.lifetime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--mode",
        required=True,
        choices=["no-streams", "zero-after-first", "deaf", "header-flood", "push-promise", "unopened-headers"],
    )
    parser.add_argument("--log", required=True)
    parser.add_argument("--ready", required=True)
    parser.add_argument("--cert-dir", required=True)
    parser.add_argument("--lifetime", type=float, default=300)
    asyncio.run(serve(parser.parse_args()))


if __name__ == "__main__":
    main()
