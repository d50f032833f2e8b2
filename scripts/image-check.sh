#!/usr/bin/env bash
# `make image-check`: the image (`make image`) built again to the same digest, then run with podman as
# an operator runs it, twice: on
# SQLite in a named volume, then on a PostgreSQL server of the host's. Each run:
#   1. makes the keys with the image's own CLI, into a directory mounted as /etc/pushseal-gateway;
#   2. starts the image's default command (serve, which migrates), and waits until its own
#      HEALTHCHECK (`pushseal-gateway health`) passes;
#   3. makes a token with `podman exec`, registers a phone whose key store lives in the container,
#      pushes, and opens what the APNs stand-in on the host received with the image's CLI;
#   4. pushes again while the stand-in answers 1.5 s late and stops the container at once:
#      `podman stop` ends it within drain_seconds, exit status 0, the push delivered;
#   5. starts a new container on the same database, which still knows the token and both pushes.
# The gateway reaches the stand-in on the host's loopback (--network host). The sandboxes this
# runs in need runc and lower limits than podman's defaults; they are set in
# scripts/podman-as-docker/containers.conf (CONTAINERS_CONF), so that every podman command below
# reads as in the docs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=image-lib.sh
source "$root/scripts/image-lib.sh"
image=${PUSHSEAL_IMAGE:-localhost/pushseal-gateway:$version}
python=${PEER_PYTHON:-$root/.build/interop-venv/bin/python}
user=10001
drain_seconds=10
work=$(mktemp -d /tmp/pushseal-image-check.XXXXXX)
chmod 755 "$work"
export CONTAINERS_CONF=$root/scripts/podman-as-docker/containers.conf
containers=()
volumes=()
pids=()

cleanup() {
    local item
    for item in "${containers[@]}"; do podman rm --force --time 0 "$item" > /dev/null 2>&1 || true; done
    for item in "${volumes[@]}"; do podman volume rm --force "$item" > /dev/null 2>&1 || true; done
    for item in "${pids[@]}"; do kill "$item" 2> /dev/null || true; done
    [[ -n ${postgres_data:-} ]] && runuser -u postgres -- "$postgres_bin/pg_ctl" -D "$postgres_data" -m immediate stop > /dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

fail() {
    echo "image-check: FAILED: $1" >&2
    if [[ -n ${2:-} ]]; then
        echo "--- the gateway's log:" >&2
        podman logs "$2" 2>&1 | tail -n 30 >&2 || true
    fi
    exit 1
}

passed() { echo "image-check: ok: $1"; }

free_port() {
    "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

podman image exists "$image" || fail "$image is not in podman's storage: run make image"

# 0. Reproducible: a second build from the same commit has the same digest, byte for byte.
first_build=$(ls "$root"/.build/image/pushseal-gateway-*.digest)
PUSHSEAL_IMAGE_OUT=$work/again "$root/scripts/image.sh" > /dev/null
[[ $(cat "$first_build") == $(cat "$work"/again/*.digest) ]] ||
    fail "two builds differ: $(cat "$first_build") and $(cat "$work"/again/*.digest)"
cmp -s "${first_build%.digest}.tar" "$work"/again/*.tar || fail "two builds' archives differ"
passed "two builds give the same image, $(cat "$first_build"), and the same archive"
for tool in /bin/sh /usr/bin/sh /bin/bash /usr/bin/apt-get /usr/bin/dpkg; do
    if podman run --rm --network none --entrypoint "$tool" "$image" -c true > /dev/null 2>&1; then
        fail "the image holds $tool"
    fi
done
passed "no shell and no package manager in the image"
rm -rf "$work/again"

# The APNs stand-in, on the host, its inbox the phone's deliveries. `late` answers 1.5 s late.
start_apns() {
    local name=$1 delay=$2
    mkdir -p "$work/$name"
    setsid "$python" "$root/interop/python/mock_apns.py" serve --auth-key "$work/AuthKey_CHECK12345.p8" \
        --key-id CHECK12345 --team-id TEAM123456 --log "$work/$name/log.jsonl" --ready "$work/$name/ready" \
        --cert-dir "$work/$name" --inbox "$work/$name/inbox" --delay-ms "$delay" --lifetime 900 \
        > "$work/$name/output" 2>&1 < /dev/zero &
    pids+=($!)
    wait_for 20 test -s "$work/$name/ready" || fail "the APNs stand-in did not start: $(tail -n 5 "$work/$name/output")"
    jq -r .port "$work/$name/ready"
}

"$python" "$root/interop/python/mock_apns.py" make-key --out "$work/AuthKey_CHECK12345.p8" > /dev/null
apns_port=$(start_apns apns 0)
late_port=$(start_apns apns-late 1500)

# One run against `database` (a URL as the configuration takes it), `volume` mounted for data.
check() {
    local label=$1 database=$2 volume=$3
    local config=$work/config-$label port token
    port=$(free_port)
    mkdir -m 700 "$config"
    cp "$work/AuthKey_CHECK12345.p8" "$config/"
    cp "$work/apns/mock-apns-cert.pem" "$config/apns-ca.pem"
    cat "$work/apns-late/mock-apns-cert.pem" >> "$config/apns-ca.pem"
    cat > "$config/gateway.json" <<CONFIG
{"listen": "127.0.0.1:$port", "database": "$database",
 "sender_key_files": ["/etc/pushseal-gateway/sender.jwk"], "drain_seconds": $drain_seconds,
 "apns": {"auth_key_file": "/etc/pushseal-gateway/AuthKey_CHECK12345.p8", "key_id": "CHECK12345",
          "team_id": "TEAM123456", "topics": ["com.example.shop", "com.example.late"],
          "hosts": {"production": "https://127.0.0.1:$apns_port", "sandbox": "https://127.0.0.1:$late_port"},
          "ca_file": "/etc/pushseal-gateway/apns-ca.pem"}}
CONFIG
    chown -R "$user:$user" "$config"
    chmod 600 "$config/AuthKey_CHECK12345.p8"

    # 1. The sender key, made by the image's CLI as the image's user.
    podman run --rm --network none -v "$config:/etc/pushseal-gateway" --entrypoint /usr/bin/pushseal "$image" \
        keys generate --suite x25519 --kid check-sender --out /etc/pushseal-gateway/sender.jwk > /dev/null 2>&1 ||
        fail "$label: the image's pushseal did not make the sender key"
    [[ $(stat -c '%u %a' "$config/sender.jwk") == "$user 600" ]] ||
        fail "$label: the sender key is $(stat -c '%u %a' "$config/sender.jwk"), not the image user's 0600"
    podman run --rm --network none -v "$config:/etc/pushseal-gateway:ro" --entrypoint /usr/bin/pushseal "$image" \
        keys public /etc/pushseal-gateway/sender.jwk > "$work/sender-$label.pub.jwk" 2> /dev/null ||
        fail "$label: the image's pushseal did not print the sender's public key"

    # 2. The default command, until its own health check passes.
    # Starts the image's default command as NAME on this configuration and volume, and waits at
    # most 30 s for its HEALTHCHECK to pass.
    start_gateway() {
        containers+=("$1")
        podman run -d --name "$1" --network host -v "$config:/etc/pushseal-gateway:ro" \
            -v "$volume:/var/lib/pushseal-gateway" "$image" > /dev/null 2> "$work/run-$1"
        wait_for 30 podman healthcheck run "$1"
    }
    local first=pushseal-check-$label-1
    start_gateway "$first" || fail "$label: the HEALTHCHECK did not pass in 30 s" "$first"
    passed "$label: serving at schema $(podman logs "$first" 2>&1 | jq -r 'select(.event == "started") | .schema' | head -n 1), its HEALTHCHECK passes"

    # 3. A token, a phone in the container, a push, opened by the image's CLI.
    token=$(podman exec "$first" pushseal-gateway token create --config /etc/pushseal-gateway/gateway.json \
        --scope devices --scope pushes --scope read) || fail "$label: token create in the container" "$first"
    podman exec "$first" pushseal keys init --store /tmp/phone > /dev/null
    podman exec "$first" pushseal keys rotate --store /tmp/phone --suite x25519 > "$work/phone-$label.pub.jwk"
    podman exec -i "$first" pushseal keys import --store /tmp/phone --sender < "$work/sender-$label.pub.jwk" > /dev/null
    local gateway=http://127.0.0.1:$port device_token
    device_token=$(printf '%064x' "$port")
    api() {
        curl -sS --fail-with-body -H "Authorization: Bearer $token" -H "Content-Type: application/json" "$@"
    }
    # Registers the phone's key and device token as DEVICE of USER, for TOPIC in ENVIRONMENT.
    register() {
        api -X PUT "$gateway/v1/devices/$1" --data "{\"user\": \"$2\", \"token\": \"$device_token\",
            \"topic\": \"$3\", \"environment\": \"$4\", \"key\": $(cat "$work/phone-$label.pub.jwk")}" > /dev/null
    }
    # Pushes an alert of TITLE and BODY to USER; prints the push's id.
    push_alert() {
        api -X POST "$gateway/v1/pushes" --data "{\"to\": {\"user\": \"$1\"},
            \"payload\": {\"aps\": {\"alert\": {\"title\": \"$2\", \"body\": \"$3\"}}}}" | jq -r .id
    }
    register phone-1 user-42 com.example.shop production || fail "$label: registering the phone" "$first"
    local push
    push=$(push_alert user-42 "Order #1042" "Shipped today") || fail "$label: the push was not accepted" "$first"
    wait_for 20 test -s "$work/apns/inbox/$device_token.json" || fail "$label: APNs got nothing in 20 s" "$first"
    podman exec -i "$first" pushseal decrypt --store /tmp/phone < "$work/apns/inbox/$device_token.json" \
        > "$work/opened-$label.json" || fail "$label: the image's pushseal did not open the push"
    [[ $(jq -r .notification.title "$work/opened-$label.json") == "Order #1042" ]] ||
        fail "$label: opened $(cat "$work/opened-$label.json")"
    passed "$label: a push sealed in the container reached the APNs stand-in, and opened"

    # 4. A push in flight (APNs answers 1.5 s late) when the container is told to stop.
    register phone-2 user-43 com.example.late sandbox || fail "$label: registering the second phone" "$first"
    local late
    late=$(push_alert user-43 Late "In flight") || fail "$label: the second push was not accepted" "$first"
    wait_for 10 test -s "$work/apns-late/inbox/$device_token.json" || fail "$label: the late push did not leave" "$first"
    local started=$SECONDS
    podman stop --time 60 "$first" > /dev/null 2>> "$work/run-$first"
    local took=$((SECONDS - started)) status
    status=$(podman inspect --format '{{.State.ExitCode}}' "$first")
    [[ $status == 0 ]] || fail "$label: exit status $status after podman stop" "$first"
    ((took <= drain_seconds)) || fail "$label: podman stop took $took s, over drain_seconds ($drain_seconds)" "$first"
    local stopped
    stopped=$(podman logs "$first" 2>&1 | jq -c 'select(.event == "stopped")')
    [[ $(jq -r '"\(.drained) \(.deliveries.sent)"' <<< "$stopped") == "true 2" ]] ||
        fail "$label: the drain did not finish the push in flight: ${stopped:-no stopped line}" "$first"
    passed "$label: podman stop drained the push in flight in $(jq .duration_ms <<< "$stopped") ms (drain_seconds $drain_seconds), exit status 0"

    # 5. A new container on the same database.
    local second=pushseal-check-$label-2
    start_gateway "$second" || fail "$label: the restarted HEALTHCHECK did not pass" "$second"
    [[ $(api "$gateway/v1/pushes/$push" | jq -r '.deliveries[0].status') == sent ]] ||
        fail "$label: after the restart the first push is not sent: $(api "$gateway/v1/pushes/$push")" "$second"
    wait_for 20 bash -c "[[ \$(curl -sS -H 'Authorization: Bearer $token' $gateway/v1/pushes/$late | jq -r '.deliveries[0].status') == sent ]]" ||
        fail "$label: the push in flight at the stop was not sent: $(api "$gateway/v1/pushes/$late")" "$second"
    passed "$label: a new container found the database again: the token, both pushes sent"
    podman stop --time 60 "$second" > /dev/null 2>> "$work/run-$second"
}

# SQLite, in a named volume (podman gives it the image's owner and mode of the directory).
volume=pushseal-check-$$
volumes+=("$volume")
podman volume create "$volume" > /dev/null
check sqlite "sqlite:/var/lib/pushseal-gateway/gateway.db" "$volume"

# PostgreSQL, the host's, on loopback.
postgres_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
postgres_data=$work/postgres
postgres_port=$(free_port)
install -d -o postgres "$postgres_data"
runuser -u postgres -- "$postgres_bin/initdb" -D "$postgres_data" -U postgres --auth=trust --no-sync > /dev/null
runuser -u postgres -- "$postgres_bin/pg_ctl" -D "$postgres_data" -l "$postgres_data/log" -w \
    -o "-p $postgres_port -k $postgres_data -c listen_addresses=127.0.0.1" start > /dev/null
runuser -u postgres -- "$postgres_bin/createdb" -h 127.0.0.1 -p "$postgres_port" -U postgres pushseal
volume=pushseal-check-pg-$$
volumes+=("$volume")
podman volume create "$volume" > /dev/null
check postgresql "postgres://postgres@127.0.0.1:$postgres_port/pushseal" "$volume"
echo "image-check: passed"
