"""Drives pushseal-gateway through a Python client generated from docs/gateway-v1.openapi.json by
openapi-python-client (PyPI) and installed as a package (`pushseal-gateway-client`, make
python-client), as a backend team would use it: register a device, push to its user, follow the
push until its delivery ends, list the user's devices page by page, and read an error as the
generated models give it. Prints one JSON line of what it saw, with where the package was
imported from; any exception (a model that cannot parse an answer) fails the run.

    python gateway_client_exercise.py --url URL --token TOKEN --device-key KEY.json --device-token HEX
"""

from __future__ import annotations

import argparse
import json
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--device-key", required=True)
    parser.add_argument("--device-token", required=True)
    arguments = parser.parse_args()

    import pushseal_gateway_client
    from pushseal_gateway_client import AuthenticatedClient
    from pushseal_gateway_client.api.devices import list_user_devices, put_device
    from pushseal_gateway_client.api.pushes import create_push, get_push
    from pushseal_gateway_client.models import DeviceRegistration, Error, PushRequest

    with open(arguments.device_key) as handle:
        key = json.load(handle)
    client = AuthenticatedClient(base_url=arguments.url, token=arguments.token)
    seen: dict = {"package": pushseal_gateway_client.__file__}
    with client as client:
        registration = DeviceRegistration.from_dict(
            {"user": "u1", "token": arguments.device_token, "topic": "com.example.shop",
             "environment": "production", "key": key})
        registered = put_device.sync_detailed("phone", client=client, body=registration)
        seen["register_status"] = registered.status_code.value
        seen["registered_id"] = registered.parsed.id
        accepted = create_push.sync(
            client=client,
            body=PushRequest.from_dict(
                {"to": {"user": "u1"}, "payload": {"aps": {"alert": {"title": "Order 1042", "body": "Shipped"}}},
                 "idempotency_key": "client-exercise-1"}))
        seen["push_id"] = accepted.id
        seen["deliveries"] = accepted.deliveries
        deadline = time.monotonic() + 20
        while True:
            push = get_push.sync(accepted.id, client=client, limit=10)
            statuses = [str(delivery.status) for delivery in push.deliveries]
            if all(status != "queued" for status in statuses) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        seen["delivery_statuses"] = statuses
        seen["sent_count"] = push.counts.sent
        devices = list_user_devices.sync("u1", client=client, limit=1)
        seen["user_devices"] = [device.id for device in devices.devices]
        conflict = create_push.sync_detailed(
            client=client,
            body=PushRequest.from_dict(
                {"to": {"user": "u1"}, "payload": {"aps": {"alert": "another"}}, "idempotency_key": "client-exercise-1"}))
        seen["conflict_status"] = conflict.status_code.value
        seen["conflict_code"] = conflict.parsed.error.code if isinstance(conflict.parsed, Error) else None
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
