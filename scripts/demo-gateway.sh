#!/usr/bin/env bash
# pushseal-gateway, step by step, against the local mock APNs (interop/python/mock_apns.py) and a
# mock Web Push service (interop/python/mock_push_service.py): configure, make a token, register a
# device and a browser's subscription, push to their user, read the push's status, and open what
# APNs received with the device's store, and what the push service received with the browser's keys.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pushseal=${PUSHSEAL:-$root/.build/release/pushseal}
gateway=${PUSHSEAL_GATEWAY:-$root/.build/release/pushseal-gateway}
python=${PEER_PYTHON:-$root/.build/interop-venv/bin/python}
work=$(mktemp -d)
cleanup() {
    [[ -n ${gateway_pid:-} ]] && kill "$gateway_pid" 2>/dev/null && wait "$gateway_pid" 2>/dev/null
    [[ -n ${mock_pid:-} ]] && kill "$mock_pid" 2>/dev/null
    [[ -n ${push_pid:-} ]] && kill "$push_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*" >&2; "$@"; }
wait_for() { for _ in $(seq 1 200); do [[ -e $1 ]] && return 0; sleep 0.05; done; echo "$1 never appeared" >&2; exit 1; }

step "0. A mock APNs on loopback (HTTP/2, checks the provider token), for this demo only"
"$python" "$root/interop/python/mock_apns.py" make-key --out AuthKey_KEY1234567.p8
"$python" "$root/interop/python/mock_apns.py" serve --auth-key AuthKey_KEY1234567.p8 --key-id KEY1234567 \
    --team-id TEAM123456 --log apns.jsonl --ready apns.ready --cert-dir . --lifetime 120 < /dev/zero &
mock_pid=$!
wait_for apns.ready
apns_port=$("$python" -c 'import json; print(json.load(open("apns.ready"))["port"])')

step "0b. A mock Web Push service on loopback (checks VAPID, decrypts like a browser), and a browser's keys"
# What PushManager.subscribe() makes in a browser: keys kept by the browser, a subscription for the app.
"$pushseal" webpush subscribe --endpoint https://push.invalid/0 --out browser-receiver.json > browser-keys.json
mkdir push-service
"$python" "$root/interop/python/mock_push_service.py" serve --receiver browser-receiver.json --log push.jsonl \
    --ready push.ready --cert-dir push-service --lifetime 120 < /dev/zero &
push_pid=$!
wait_for push.ready
push_port=$("$python" -c 'import json; print(json.load(open("push.ready"))["port"])')

step "1. The backend's sender key and the gateway's configuration"
show "$pushseal" keys generate --suite x25519 --kid backend-2026 --out backend-x25519.jwk
show "$pushseal" keys generate --suite p256 --out vapid.jwk      # VAPID: its public key is the web app's applicationServerKey
# allow_local_destinations: only because this demo's push service is on loopback.
cat > gateway.json <<CONFIG
{"listen": "127.0.0.1:18480", "database": "sqlite:gateway.db",
 "sender_key_files": ["backend-x25519.jwk"],
 "apns": {"auth_key_file": "AuthKey_KEY1234567.p8", "key_id": "KEY1234567", "team_id": "TEAM123456",
          "topics": ["com.example.shop"], "hosts": {"production": "https://127.0.0.1:$apns_port"},
          "ca_file": "mock-apns-cert.pem"},
 "workers": 2,
 "webpush": {"vapid_key_file": "vapid.jwk", "subject": "mailto:ops@example.com",
             "allow_local_destinations": true, "ca_file": "push-service/mock-push-cert.pem",
             "navigate": "https://shop.example.com/notifications"}}
CONFIG
cat gateway.json

step "2. A token for the backend (printed once; stored only as a hash)"
token=$(show "$gateway" token create --config gateway.json --scope devices --scope pushes --scope read)
echo "TOKEN=${token:0:21}… (shown once)"
"$gateway" serve --config gateway.json 2> gateway.log &
gateway_pid=$!
for _ in $(seq 1 100); do curl -sf http://127.0.0.1:18480/healthz > /dev/null && break; sleep 0.05; done
api() {
    printf '$ curl -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" %s\n' "$*" >&2
    curl -s -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "$@"
    echo
}

step "3. The device makes its key store; the app registers its public key through the backend"
"$pushseal" keys init --store device-store
"$pushseal" keys rotate --store device-store --suite x25519 > device.pub.jwk
"$pushseal" keys public backend-x25519.jwk | "$pushseal" keys import --store device-store --sender
api -X PUT http://127.0.0.1:18480/v1/devices/phone-1 --data \
    "{\"user\":\"user-42\",\"token\":\"00aa$(printf '%060d' 1)\",\"topic\":\"com.example.shop\",\"environment\":\"production\",\"key\":$(cat device.pub.jwk)}"

step "3b. The web app subscribes (PushManager.subscribe) and registers the subscription the same way"
subscription=$("$python" -c 'import json, sys
subscription = json.load(open("browser-keys.json"))
subscription["endpoint"] = sys.argv[1]
print(json.dumps(subscription))' "https://127.0.0.1:$push_port/push/ok/laptop-1")
api -X PUT http://127.0.0.1:18480/v1/devices/laptop-1 --data "{\"user\":\"user-42\",\"subscription\":$subscription}"

step "4. Push to the user: sealed per device, answered before any APNs round trip"
answer=$(api -X POST http://127.0.0.1:18480/v1/pushes --data \
    '{"to":{"user":"user-42"},"payload":{"aps":{"alert":{"title":"Order #1042","body":"Shipped today"}},"order":1042}}')
echo "$answer"
push_id=$("$python" -c 'import json,sys; print(json.loads(sys.argv[1])["id"])' "$answer")
sleep 1

step "5. The push's status"
api "http://127.0.0.1:18480/v1/pushes/$push_id"

step "6. What APNs received (ciphertext and placeholder), opened with the device's store"
body=$("$python" -c 'import json; print(json.loads(open("apns.jsonl").readline())["body"])')
echo "${body:0:160}…"
printf '%s' "$body" | show "$pushseal" decrypt --store device-store

step "6b. What the push service received: an aes128gcm message it opened with the browser's keys"
"$python" -c 'import json, base64
line = json.loads(open("push.jsonl").readline())
content = line["content"] + "=" * (-len(line["content"]) % 4)
print("status", line["status"], "ttl", line["ttl"], "vapid sub", line["vapid"]["sub"])
print(base64.urlsafe_b64decode(content).decode())'

step "7. The gateway's log: one JSON line per event, never content"
cat gateway.log
