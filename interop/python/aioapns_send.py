"""aioapns (PyPI), the reference asyncio APNs client, sending `pushseal send`'s job lines.

For `make bench`: the same jobs, the same mock and the same stream budget as `pushseal send`, so
that the two clients' delivery rates are measured side by side. Each job line is
`{"token", "topic", "sealed"}` (an already sealed payload); every push goes over one HTTP/2
connection (`max_connections=1`), at most `--concurrency` at once. It prints one JSON object:
the pushes sent, failed and per second.

    python aioapns_send.py --auth-key AuthKey.p8 --key-id KEY --team-id TEAM --host 127.0.0.1 \\
                           --port PORT --ca-file cert.pem --concurrency 100 jobs.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import ssl
import time

import aioapns.connection
from aioapns import APNs, NotificationRequest, PushType


async def send(arguments) -> dict:
    # aioapns names Apple's hosts in its protocol classes; point them at the mock.
    aioapns.connection.APNsProductionClientProtocol.APNS_SERVER = arguments.host
    aioapns.connection.APNsProductionClientProtocol.APNS_PORT = arguments.port
    with open(arguments.auth_key) as handle:
        key = handle.read()
    with open(arguments.jobs) as handle:
        jobs = [json.loads(line) for line in handle if line.strip()]
    context = ssl.create_default_context(cafile=arguments.ca_file)
    client = APNs(
        key=key, key_id=arguments.key_id, team_id=arguments.team_id, topic=jobs[0]["topic"], max_connections=1,
        ssl_context=context,
    )
    gate = asyncio.Semaphore(arguments.concurrency)
    outcomes = {"sent": 0, "failed": 0}

    async def one(job: dict) -> None:
        async with gate:
            request = NotificationRequest(
                device_token=job["token"], message=job["sealed"], push_type=PushType.ALERT, apns_topic=job["topic"]
            )
            result = await client.send_notification(request)
            outcomes["sent" if result.is_successful else "failed"] += 1

    started = time.monotonic()
    await asyncio.gather(*(one(job) for job in jobs))
    seconds = time.monotonic() - started
    return {**outcomes, "seconds": seconds, "per_second": len(jobs) / seconds}


def main() -> None:
    parser = argparse.ArgumentParser(prog="aioapns_send.py", description=__doc__.split("\n")[0])
    parser.add_argument("--auth-key", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca-file", required=True)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("jobs")
    print(json.dumps(asyncio.run(send(parser.parse_args()))))


if __name__ == "__main__":
    main()
