#!/usr/bin/env bash
# The PushSeal round trip, step by step: keys, seal a sample order push, open it as the
# extension would, then watch a tampered copy degrade to its placeholder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pushseal=${PUSHSEAL:-$root/.build/release/pushseal}
[[ $pushseal = /* ]] || pushseal=$root/$pushseal
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "${*/#$pushseal/pushseal}" >&2; "$@"; }

step "1. The device makes its key store (the app-group container) and a key"
show "$pushseal" keys init --store device-store
show "$pushseal" keys rotate --store device-store --suite x25519 | tee device.pub.jwk

step "2. The backend makes its sender key; the device trusts its public half"
show "$pushseal" keys generate --suite x25519 --kid backend-2026 --out backend.jwk
"$pushseal" keys public backend.jwk > backend.pub.jwk
show "$pushseal" keys import --store device-store --sender backend.pub.jwk
show "$pushseal" keys list --store device-store

step "3. The backend seals an order push (what APNs, logs and proxies will see)"
cp "$root/examples/order.json" order.json
show cat order.json
show "$pushseal" encrypt --to device.pub.jwk --sender backend.jwk --clear thread-id order.json | tee sealed.json
show "$pushseal" inspect sealed.json

step "4. The same, as an APNs request with its headers"
show "$pushseal" encrypt --to device.pub.jwk --sender backend.jwk --apns-request --topic com.example.shop \
    --collapse-id order-1042 order.json | cut -c1-160
echo "…"

step "5. The extension opens it (and records event_id: a second delivery is a duplicate)"
show "$pushseal" decrypt --store device-store --record sealed.json
show "$pushseal" decrypt --store device-store --record sealed.json | grep -o '"duplicate":[a-z]*'

step "6. One changed character in the ciphertext: the notification degrades to its placeholder, with a reason"
original=$(cut -c301 sealed.json)
[[ $original = A ]] && replacement=B || replacement=A
sed "s/^\(.\{300\}\)./\1$replacement/" sealed.json > tampered.json
set +e
"$pushseal" decrypt --store device-store tampered.json
echo "(exit status $?: a degraded notification)"
set -e

step "Done: the order text never left the backend in clear."
