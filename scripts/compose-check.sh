#!/usr/bin/env bash
# `make compose-check`: deploy/compose.yaml brought up with Debian's podman-compose, as an operator
# brings it up, beside the image `make image` built. No image registry is reachable here, so the
# official `postgres:15` it names is stood in for by an image built here from Debian's
# postgresql-15 (mmdebstrap), with the part of the official image's interface that compose.yaml
# uses: POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD_FILE, PGDATA, pg_isready on PATH. It is
# removed at the end, so that it never shadows the real one.
#   1. up: PostgreSQL initialises, the gateway waits for its health check, migrates and serves;
#   2. a token made with `podman exec` in the gateway's container, a device registered and a push accepted, both
#      over the published port, password from the .pgpass file in the mounted configuration;
#   3. down: the gateway drains (its `stopped` line), and up again finds the push in PostgreSQL's
#      volume.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=image-lib.sh
source "$root/scripts/image-lib.sh"
image=localhost/pushseal-gateway:$version
standin=docker.io/library/postgres:15
python=${PEER_PYTHON:-$root/.build/interop-venv/bin/python}
export CONTAINERS_CONF=$root/scripts/podman-as-docker/containers.conf
work=$(mktemp -d /tmp/pushseal-compose-check.XXXXXX)
project=pushseal-check-$$
compose=(podman-compose --project-name "$project" --file "$work/compose.yaml")
chmod 755 "$work"

cleanup() {
    "${compose[@]}" down --volumes > /dev/null 2>&1 || true
    podman rmi --force "$standin" > /dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

fail() {
    echo "compose-check: FAILED: $1" >&2
    "${compose[@]}" logs > "$work/logs" 2>&1 || true
    tail -n 40 "$work/logs" >&2
    exit 1
}

passed() { echo "compose-check: ok: $1"; }

podman image exists "$image" || fail "$image is not in podman's storage: run make image"
if podman image exists "$standin"; then
    fail "$standin exists already: this check stands in for it, and would remove it"
fi

# The stand-in for the official PostgreSQL image.
debian_extract "$work/postgres" postgresql-15,bash,coreutils
# /bin/sh, for initdb's popen (dash's maintainer script makes it, and none ran).
ln -sf bash "$work/postgres/bin/sh"
printf 'root:x:0:0::/root:/bin/bash\npostgres:x:999:999::/var/lib/postgresql:/bin/bash\n' > "$work/postgres/etc/passwd"
printf 'root:x:0:\npostgres:x:999:\n' > "$work/postgres/etc/group"
install -d -o 999 -g 999 -m 0700 "$work/postgres/var/lib/postgresql/data"
chmod 1777 "$work/postgres/tmp"
mkdir -p "$work/postgres/usr/local/bin"
cat > "$work/postgres/usr/local/bin/docker-entrypoint.sh" <<'ENTRYPOINT'
#!/bin/bash
# The official image's start, as far as compose.yaml uses it: a first start makes the cluster
# with POSTGRES_USER and the password in POSTGRES_PASSWORD_FILE, and the database POSTGRES_DB.
set -euo pipefail
if [[ ! -s $PGDATA/PG_VERSION ]]; then
    initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$POSTGRES_PASSWORD_FILE" -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 > /dev/null
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -k /tmp" start > /dev/null
    createdb -h /tmp -U "$POSTGRES_USER" "$POSTGRES_DB"
    pg_ctl -D "$PGDATA" -w stop > /dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -k /tmp
ENTRYPOINT
chmod 755 "$work/postgres/usr/local/bin/docker-entrypoint.sh"
container=$(buildah from scratch)
tar --numeric-owner -C "$work/postgres" -cf "$work/postgres.tar" .
buildah add --quiet "$container" "$work/postgres.tar" / > /dev/null
buildah config --user 999:999 --env PGDATA=/var/lib/postgresql/data \
    --env PATH=/usr/local/bin:/usr/lib/postgresql/15/bin:/usr/bin:/bin --port 5432 \
    --volume /var/lib/postgresql/data --entrypoint '["/usr/local/bin/docker-entrypoint.sh"]' "$container"
buildah commit --quiet --rm "$container" "$standin" > /dev/null
rm -rf "$work/postgres" "$work/postgres.tar"
passed "the PostgreSQL stand-in, $standin, built from Debian's postgresql-15"

# The operator's directory: compose.yaml, the configuration and keys, the password.
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed "s/127.0.0.1:8080:8080/127.0.0.1:$port:8080/" "$root/deploy/compose.yaml" > "$work/compose.yaml"
grep -q "127.0.0.1:$port:8080" "$work/compose.yaml" || fail "compose.yaml publishes no 127.0.0.1:8080"
mkdir -m 700 "$work/gateway"
cp "$root/deploy/compose/gateway.json" "$work/gateway/"
"$python" "$root/interop/python/mock_apns.py" make-key --out "$work/gateway/AuthKey_ABC123DEFG.p8" > /dev/null
password=$("$python" -c 'import secrets; print(secrets.token_urlsafe(24))')
echo "$password" > "$work/database-password"
echo "postgres:5432:pushseal:pushseal:$password" > "$work/gateway/pgpass"
chown -R 10001:10001 "$work/gateway"
chmod 600 "$work/gateway"/*
podman run --rm --network none -v "$work/gateway:/etc/pushseal-gateway" --entrypoint pushseal "$image" \
    keys generate --suite x25519 --out /etc/pushseal-gateway/sender-x25519.jwk > /dev/null 2>&1 ||
    fail "the image's pushseal did not make the sender key"

# 1. Up.
"${compose[@]}" up -d > "$work/up.log" 2>&1 || fail "podman-compose up: $(tail -n 5 "$work/up.log")"
gateway=http://127.0.0.1:$port
wait_for 90 curl -sf "$gateway/readyz" || fail "the gateway was not ready in 90 s"
passed "up: PostgreSQL initialised, the gateway migrated it and is ready on 127.0.0.1:$port"

# 2. A token, a device, a push.
container=$(podman ps --filter "label=com.docker.compose.project=$project" \
    --filter label=com.docker.compose.service=gateway --format '{{.Names}}')
token=$(podman exec "$container" pushseal-gateway token create --config /etc/pushseal-gateway/gateway.json \
    --scope devices --scope pushes --scope read) || fail "token create in the gateway's container"
api() { curl -sS --fail-with-body -H "Authorization: Bearer $token" -H "Content-Type: application/json" "$@"; }
phone=$("$root/.build/release/pushseal" keys generate --suite x25519 --out "$work/phone.jwk" 2> /dev/null &&
    "$root/.build/release/pushseal" keys public "$work/phone.jwk")
registered=$(api -X PUT "$gateway/v1/devices/phone-1" --data "{\"user\": \"user-42\", \"token\": \"$(printf '%064x' 42)\",
    \"topic\": \"com.example.shop\", \"environment\": \"production\", \"key\": $phone}") ||
    fail "registering a device: $registered"
push=$(api -X POST "$gateway/v1/pushes" --data '{"to": {"user": "user-42"},
    "payload": {"aps": {"alert": {"title": "Order #1042", "body": "Shipped today"}}}}' | jq -r .id) ||
    fail "the push was not accepted"
passed "a token made in the container, a device registered, push $push accepted"

# 3. Down drains; up finds the push again.
"${compose[@]}" stop > /dev/null 2>&1
stopped=$(podman logs "$container" 2>&1 | grep '"event":"stopped"' | tail -n 1)
[[ $(jq -r .drained <<< "${stopped:-{\}}") == true ]] || fail "the gateway did not drain on stop: ${stopped:-no stopped line}"
"${compose[@]}" down > /dev/null 2>&1
"${compose[@]}" up -d > "$work/up.log" 2>&1 || fail "podman-compose up again: $(tail -n 5 "$work/up.log")"
wait_for 90 curl -sf "$gateway/readyz" || fail "the gateway was not ready again in 90 s"
[[ $(api "$gateway/v1/pushes/$push" | jq -r .id) == "$push" ]] || fail "after down and up the push is gone"
passed "stop drained the gateway; after down and up, PostgreSQL's volume still holds the push"
echo "compose-check: passed"
