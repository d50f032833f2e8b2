"""Checks the examples of docs/gateway-v1.openapi.json: every JSON request body, every 2xx
answer with content and every webhook's body has one, and each validates against its own schema
(JSON Schema 2020-12, with jsonschema_rs from the schemathesis environment, PyPI). Prints what it
checked; names each operation without an example and each example its schema refuses, with
status 1. With `--events FILE` it checks instead the webhook events a receiver got (a JSON array
of bodies), each against the schema of the webhook whose `type` it has.

    python openapi_examples.py docs/gateway-v1.openapi.json
    python openapi_examples.py docs/gateway-v1.openapi.json --events events.json
"""

from __future__ import annotations

import json
import sys

import jsonschema_rs


def problems(document: dict) -> tuple[list[str], int]:
    """What is wrong with the document's examples, and how many examples were checked."""
    found: list[str] = []
    checked = 0

    def check(where: str, schema: dict, value) -> None:
        nonlocal checked
        checked += 1
        validator = jsonschema_rs.validator_for({**schema, "components": document["components"]})
        for error in validator.iter_errors(value):
            found.append(f"{where}: the example breaks its schema: {error.message}")

    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method not in ("get", "put", "post", "delete", "patch"):
                continue
            name = f"{method.upper()} {path} ({operation.get('operationId')})"
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is not None:
                examples = [entry["value"] for entry in body.get("examples", {}).values()]
                if "example" in body:
                    examples.append(body["example"])
                if not examples:
                    found.append(f"{name}: its request body has no example")
                for example in examples:
                    check(f"{name} request", body["schema"], example)
            for status, answer in operation["responses"].items():
                if not status.startswith("2"):
                    continue
                for media, content in answer.get("content", {}).items():
                    if "example" not in content and not content.get("examples"):
                        found.append(f"{name}: its {status} answer ({media}) has no example")
                    elif media == "application/json" and "example" in content:
                        check(f"{name} {status}", content["schema"], content["example"])
    for name, webhook in document.get("webhooks", {}).items():
        for method, operation in webhook.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            if "example" not in body:
                found.append(f"webhook {name}: its body has no example")
            else:
                check(f"webhook {name}", body["schema"], body["example"])
    return found, checked


def event_problems(document: dict, events: list) -> list[str]:
    """What is wrong with `events` (webhook bodies as a receiver got them) by the document."""
    schemas = document["components"]["schemas"]
    by_type: dict[str, dict] = {}
    for webhook in document.get("webhooks", {}).values():
        for operation in webhook.values():
            schema = operation["requestBody"]["content"]["application/json"]["schema"]
            named = schemas[schema["$ref"].split("/")[-1]]
            kind = named["properties"]["type"]
            for type_name in kind.get("enum", [kind.get("const")]):
                by_type[type_name] = schema
    found: list[str] = []
    for index, event in enumerate(events):
        schema = by_type.get(event.get("type"))
        if schema is None:
            found.append(f"event {index}: no webhook of the document has the type {event.get('type')!r}")
            continue
        validator = jsonschema_rs.validator_for({**schema, "components": document["components"]})
        for error in validator.iter_errors(event):
            found.append(f"event {index} ({event.get('type')}): {error.message}")
    return found


def main() -> None:
    document = json.load(open(sys.argv[1], encoding="utf-8"))
    if sys.argv[2:3] == ["--events"]:
        events = json.load(open(sys.argv[3], encoding="utf-8"))
        found = event_problems(document, events)
        for problem in found:
            print(problem)
        print(f"openapi_examples: {len(events)} events checked, {len(found)} problems")
        sys.exit(1 if found else 0)
    found, checked = problems(document)
    for problem in found:
        print(problem)
    print(f"openapi_examples: {checked} examples checked, {len(found)} problems")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
