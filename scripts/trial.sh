#!/usr/bin/env bash
# The local trial (`make trial`, `make trial-stop`): pushseal-gateway with no Apple account, in
# .trial/ at the repository's root. It runs three processes in the background:
#
#   - a local stand-in for APNs (interop/python/mock_apns.py), which checks what APNs checks and
#     keeps the last push each device token received as .trial/apns/<token>.json;
#   - a local Web Push service (interop/python/mock_push_service.py), which checks VAPID and
#     keeps each message as .trial/push-service/<the endpoint's last path segment>.bin;
#   - the gateway on http://127.0.0.1:8480 (PUSHSEAL_TRIAL_PORT to choose another port), with a
#     sender key, a VAPID key and a token of every scope;
#   - an HTTPS front to the gateway (interop/python/tls_front.py, as nginx in production), the
#     public name of its receipts, where the phone reports what it showed.
#
# .trial/env exports PATH (the release build first), GATEWAY, TOKEN, PUSH_SERVICE, TRIAL,
# TRIAL_CA (the front's certificate) and PUSHSEAL_CHECKOUT (the repository's root).
# `start` stops a trial already running and begins afresh; `stop` ends it and removes .trial/.
# In the trial's container (scripts/trial-container.sh) the same script runs with
# PUSHSEAL_TRIAL_DIR (the host's .trial/, mounted at the same path), PUSHSEAL_TRIAL_LISTEN
# (0.0.0.0, for the published port) and PUSHSEAL_TRIAL_PATH (where env's PATH finds the CLI: the
# host's wrappers that run it in the container); `stop-processes` ends the processes alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
trial=${PUSHSEAL_TRIAL_DIR:-$root/.trial}
bin=${PUSHSEAL_BIN:-$root/.build/release}
python=${PEER_PYTHON:-$root/.build/interop-venv/bin/python}
port=${PUSHSEAL_TRIAL_PORT:-8480}
listen=${PUSHSEAL_TRIAL_LISTEN:-127.0.0.1}
checkout=${PUSHSEAL_CHECKOUT:-$root}

stop() {
    [[ -f $trial/pids ]] || return 0
    local pid
    while read -r pid; do kill "$pid" 2>/dev/null || true; done < "$trial/pids"
    # The gateway drains before it exits: wait for it, so that its port is free again.
    for _ in $(seq 1 100); do
        local alive=0
        while read -r pid; do kill -0 "$pid" 2>/dev/null && alive=1; done < "$trial/pids"
        [[ $alive == 0 ]] && break
        sleep 0.1
    done
    rm -f "$trial/pids"
}

# Starts a process in the background, in its own session, its output in LOG.
background() {
    local log=$1 input=$2
    shift 2
    setsid "$@" > "$log" 2>&1 < "$input" &
    echo $! >> "$trial/pids"
}

fail() {
    echo "make trial: $1" >&2
    [[ -n ${2:-} && -f $2 ]] && tail -n 20 "$2" >&2
    stop
    exit 1
}

wait_for_file() {
    for _ in $(seq 1 200); do [[ -s $1 ]] && return 0; sleep 0.05; done
    fail "$2 did not start" "$3"
}

ready_port() {
    "$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["port"])' "$1"
}

start() {
    for program in "$bin/pushseal" "$bin/pushseal-gateway" "$python"; do
        [[ -x $program ]] || fail "$program is missing: run make trial, which builds it"
    done
    stop
    # Emptied rather than removed: in the container it is a mount point.
    mkdir -p -m 700 "$trial"
    chmod 700 "$trial"
    find "$trial" -mindepth 1 -delete
    cd "$trial"
    if curl -s -o /dev/null "http://127.0.0.1:$port/healthz"; then
        fail "port $port is taken: set PUSHSEAL_TRIAL_PORT to a free port"
    fi

    # The APNs stand-in, with an auth key of its own: the gateway signs its provider tokens with it.
    "$python" "$root/interop/python/mock_apns.py" make-key --out AuthKey_TRIAL12345.p8
    mkdir stand-ins
    # Standard input stays open (/dev/zero): the stand-ins stop when it closes or after a day.
    background apns.log /dev/zero "$python" "$root/interop/python/mock_apns.py" serve \
        --auth-key AuthKey_TRIAL12345.p8 --key-id TRIAL12345 --team-id TEAM123456 \
        --log apns.jsonl --ready stand-ins/apns.ready --cert-dir stand-ins --inbox apns --lifetime 86400
    background push-service.log /dev/zero "$python" "$root/interop/python/mock_push_service.py" serve \
        --log push-service.jsonl --ready stand-ins/push.ready --cert-dir stand-ins --inbox push-service \
        --lifetime 86400
    echo "$port" > stand-ins/gateway-port
    background front.log /dev/zero "$python" "$root/interop/python/tls_front.py" serve \
        --upstream-file stand-ins/gateway-port --ready stand-ins/front.ready --cert-dir stand-ins --lifetime 86400
    wait_for_file stand-ins/apns.ready "the APNs stand-in" apns.log
    wait_for_file stand-ins/push.ready "the Web Push stand-in" push-service.log
    wait_for_file stand-ins/front.ready "the HTTPS front" front.log
    local apns_port push_port front_port
    apns_port=$(ready_port stand-ins/apns.ready)
    push_port=$(ready_port stand-ins/push.ready)
    front_port=$(ready_port stand-ins/front.ready)
    # Push services trusted: the stand-in's certificate, and the system's authorities, so that a
    # real browser's subscription (an endpoint of its vendor's push service) is delivered too.
    cat stand-ins/mock-push-cert.pem > stand-ins/push-services.pem
    [[ -r /etc/ssl/certs/ca-certificates.crt ]] && cat /etc/ssl/certs/ca-certificates.crt >> stand-ins/push-services.pem

    "$bin/pushseal" keys generate --suite x25519 --kid trial-sender --out sender.jwk
    "$bin/pushseal" keys public sender.jwk > sender.pub.jwk
    "$bin/pushseal" keys generate --suite p256 --kid trial-vapid --out vapid.jwk
    cat > gateway.json <<CONFIG
{
  "listen": "$listen:$port",
  "database": "sqlite:gateway.db",
  "sender_key_files": ["sender.jwk"],
  "apns": {
    "auth_key_file": "AuthKey_TRIAL12345.p8", "key_id": "TRIAL12345", "team_id": "TEAM123456",
    "topics": ["com.example.shop"],
    "hosts": {"production": "https://127.0.0.1:$apns_port", "sandbox": "https://127.0.0.1:$apns_port"},
    "ca_file": "stand-ins/mock-apns-cert.pem"
  },
  "webpush": {
    "vapid_key_file": "vapid.jwk", "subject": "mailto:trial@example.com",
    "allow_local_destinations": true, "ca_file": "stand-ins/push-services.pem",
    "navigate": "https://shop.example.com/notifications"
  },
  "receipts": {"url": "https://127.0.0.1:$front_port"},
  "relay": {"public_url": "https://127.0.0.1:$front_port"}
}
CONFIG
    local token
    token=$("$bin/pushseal-gateway" token create --config gateway.json --label trial \
        --scope devices --scope pushes --scope read --scope admin)
    background gateway.log /dev/null "$bin/pushseal-gateway" serve --config gateway.json
    for _ in $(seq 1 200); do
        curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break
        sleep 0.05
    done
    curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" || fail "the gateway did not start" gateway.log

    (
        umask 077
        cat > env <<ENV
# The local trial's environment (scripts/trial.sh): source it from a shell.
export PATH="${PUSHSEAL_TRIAL_PATH:-$bin}:\$PATH"
export GATEWAY=http://127.0.0.1:$port
export TOKEN=$token
export PUSH_SERVICE=https://127.0.0.1:$push_port
export TRIAL=$trial
export TRIAL_CA=$trial/stand-ins/tls-front-cert.pem
export PUSHSEAL_CHECKOUT=$checkout
export TRIAL_PYTHON=$python
ENV
    )
    cat <<DONE
The trial is running in .trial/: pushseal-gateway on http://127.0.0.1:$port (and behind an
HTTPS front on https://127.0.0.1:$front_port, where phones post receipts), a local APNs (its
pushes in .trial/apns/) and a local Web Push service (its messages in .trial/push-service/).
Next: source .trial/env, then the README's "Five minutes". Stop it with make trial-stop.
DONE
}

case ${1:-} in
    start) start ;;
    stop) stop; rm -rf "$trial" ;;
    stop-processes) stop ;;
    *) echo "usage: scripts/trial.sh start|stop|stop-processes" >&2; exit 2 ;;
esac
