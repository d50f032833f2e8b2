#!/usr/bin/env bash
# The Debian packages of `make package`, installed into a throwaway root and run from there, as an
# operator on Debian 12 would: the root is this machine's own file system under an overlay (its
# writes go to a temporary directory, never to the machine), in a mount namespace of its own,
# entered with chroot. Run by `make test` (as root, through sudo when needed, as dpkg needs).
#
#   1. dpkg -i both packages: the pushseal user, /etc/pushseal-gateway (root:pushseal 0750, the
#      conffile 0640), /var/lib/pushseal-gateway (pushseal 0700); systemd-analyze verify on the unit
#      as installed;
#   2. pushseal-gateway migrate, token create and serve as the pushseal user, against the local APNs
#      stand-in: a device registered and a push sent through it;
#   3. dpkg -r keeps the database and the configuration; dpkg -P removes both.
# Each step that fails names itself and exits 1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PEER_PYTHON:-$root/.build/interop-venv/bin/python}
gateway_deb=$(ls "$root"/.build/package/pushseal-gateway_*.deb)
cli_deb=$(ls "$root"/.build/package/pushseal_*.deb)
# make package installs what a build and its packaging need, never the test tooling (a browser,
# a database server, …): what it would install is the Makefile's plan, read without running it.
plan=$(make -s -n -C "$root" package 2> /dev/null)
for tool in chromium postgresql valgrind nginx prometheus fuse3; do
    if grep -qw -- "$tool" <<< "$plan"; then
        echo "package-check: make package would install $tool, a test tool" >&2
        exit 1
    fi
done
# dpkg and the mount namespace need root: as make deps does, ask sudo when not root.
if [[ $(id -u) != 0 ]]; then exec sudo --preserve-env=PEER_PYTHON "$0" "$@"; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/upper" "$work/work" "$work/merged" "$work/stand-in"

# The APNs stand-in, on this machine's loopback, which the throwaway root shares.
"$python" "$root/interop/python/mock_apns.py" make-key --out "$work/stand-in/AuthKey_TRIAL12345.p8"
"$python" "$root/interop/python/mock_apns.py" serve --auth-key "$work/stand-in/AuthKey_TRIAL12345.p8" \
    --key-id TRIAL12345 --team-id TEAM123456 --log "$work/stand-in/apns.jsonl" --ready "$work/stand-in/ready" \
    --cert-dir "$work/stand-in" --lifetime 300 < /dev/zero > "$work/stand-in/log" 2>&1 &
mock=$!
trap 'kill $mock 2> /dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 200); do [[ -s $work/stand-in/ready ]] && break; sleep 0.05; done
apns_port=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["port"])' "$work/stand-in/ready")
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

unshare --mount --propagation private bash -s -- "$work" "$gateway_deb" "$cli_deb" "$apns_port" "$port" <<'INSIDE'
set -euo pipefail
work=$1 gateway_deb=$2 cli_deb=$3 apns_port=$4 port=$5
merged=$work/merged
fail() { echo "package-check: $*" >&2; exit 1; }
mount -t overlay overlay -o "lowerdir=/,upperdir=$work/upper,workdir=$work/work" "$merged"
mount --bind /proc "$merged/proc"
mount --rbind /dev "$merged/dev"
mount -t tmpfs tmpfs "$merged/tmp"
mount -t tmpfs tmpfs "$merged/run"
in_root() { chroot "$merged" "$@"; }
as_gateway() { chroot "$merged" runuser -u pushseal -- "$@"; }

# A root that never had the packages: what an earlier run or this machine installed goes first.
in_root dpkg --purge pushseal-gateway pushseal > /dev/null 2>&1 || true
cp "$gateway_deb" "$cli_deb" "$merged/tmp/"
in_root dpkg -i "/tmp/$(basename "$cli_deb")" "/tmp/$(basename "$gateway_deb")" > /dev/null \
    || fail "dpkg -i failed"
echo "package-check: installed $(in_root dpkg-query -W -f='${Package} ${Version}, ' pushseal-gateway pushseal)"

in_root getent passwd pushseal > /dev/null || fail "no pushseal user"
[[ $(in_root stat -c '%U:%G %a' /etc/pushseal-gateway) == "root:pushseal 750" ]] || fail "/etc/pushseal-gateway: $(in_root stat -c '%U:%G %a' /etc/pushseal-gateway)"
[[ $(in_root stat -c '%U:%G %a' /etc/pushseal-gateway/gateway.json) == "root:pushseal 640" ]] || fail "gateway.json's owner or mode"
[[ $(in_root stat -c '%U:%G %a' /var/lib/pushseal-gateway) == "pushseal:pushseal 700" ]] || fail "/var/lib/pushseal-gateway's owner or mode"
in_root dpkg-query -W -f='${Conffiles}' pushseal-gateway | grep -q /etc/pushseal-gateway/gateway.json || fail "gateway.json is not a conffile"
verified=$(in_root systemd-analyze verify /lib/systemd/system/pushseal-gateway.service 2>&1) || fail "systemd-analyze verify: $verified"
[[ -z $verified ]] || fail "systemd-analyze verify says: $verified"
in_root pushseal-gateway help serve | grep -q "/usr/share/doc/pushseal-gateway/" || fail "pushseal-gateway help names no shipped documentation"

# Configure as docs/operations.md says: keys 0600 owned by pushseal, the APNs host the stand-in's.
etc=$merged/etc/pushseal-gateway
cp "$work/stand-in/AuthKey_TRIAL12345.p8" "$work/stand-in/mock-apns-cert.pem" "$etc/"
in_root pushseal keys generate --suite x25519 --out /etc/pushseal-gateway/sender-x25519.jwk 2> /dev/null
in_root chown pushseal:pushseal /etc/pushseal-gateway/sender-x25519.jwk /etc/pushseal-gateway/AuthKey_TRIAL12345.p8
in_root chmod 0600 /etc/pushseal-gateway/AuthKey_TRIAL12345.p8
cat > "$etc/gateway.json" <<CONFIG
{"listen": "127.0.0.1:$port", "database": "sqlite:/var/lib/pushseal-gateway/gateway.db",
 "sender_key_files": ["/etc/pushseal-gateway/sender-x25519.jwk"],
 "apns": {"auth_key_file": "/etc/pushseal-gateway/AuthKey_TRIAL12345.p8", "key_id": "TRIAL12345",
          "team_id": "TEAM123456", "topics": ["com.example.shop"],
          "hosts": {"production": "https://127.0.0.1:$apns_port"}, "ca_file": "/etc/pushseal-gateway/mock-apns-cert.pem"}}
CONFIG
migrated=$(as_gateway pushseal-gateway migrate --config /etc/pushseal-gateway/gateway.json 2>&1)
[[ $migrated == *"created at schema"* ]] || fail "migrate: $migrated"
token=$(as_gateway pushseal-gateway token create --config /etc/pushseal-gateway/gateway.json --scope devices --scope pushes --scope read)
chroot "$merged" runuser -u pushseal -- pushseal-gateway serve --config /etc/pushseal-gateway/gateway.json \
    2> "$work/gateway.log" &
served=$!
for _ in $(seq 1 200); do curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.05; done
curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" || fail "serve did not answer: $(tail -3 "$work/gateway.log")"
in_root pushseal keys init --store /tmp/phone > /dev/null
key=$(in_root pushseal keys rotate --store /tmp/phone --suite x25519)
api() { curl -sS -H "Authorization: Bearer $token" -H "Content-Type: application/json" "$@"; }
api -X PUT "http://127.0.0.1:$port/v1/devices/phone" --data \
    "{\"user\":\"u1\",\"token\":\"00aa$(printf '%060d' 1)\",\"topic\":\"com.example.shop\",\"environment\":\"production\",\"key\":$key}" > /dev/null
push=$(api -X POST "http://127.0.0.1:$port/v1/pushes" --data '{"to":{"user":"u1"},"payload":{"aps":{"alert":"from the package"}}}')
id=$(sed 's/.*"id":"\([^"]*\)".*/\1/' <<< "$push")
for _ in $(seq 1 100); do
    api "http://127.0.0.1:$port/v1/pushes/$id" | grep -q '"sent":1' && break
    sleep 0.1
done
api "http://127.0.0.1:$port/v1/pushes/$id" | grep -q '"sent":1' || fail "the push was not sent: $(api "http://127.0.0.1:$port/v1/pushes/$id")"
kill -TERM "$served"
wait "$served" || true
echo "package-check: migrate, token create and serve ran as pushseal; a push went through the APNs stand-in"

in_root dpkg -r pushseal-gateway > /dev/null || fail "dpkg -r failed"
[[ ! -e $merged/usr/bin/pushseal-gateway ]] || fail "dpkg -r left the binary"
[[ -s $merged/var/lib/pushseal-gateway/gateway.db ]] || fail "dpkg -r removed the database"
[[ -e $merged/etc/pushseal-gateway/sender-x25519.jwk ]] || fail "dpkg -r removed the keys"
in_root dpkg -P pushseal-gateway > /dev/null || fail "dpkg -P failed"
[[ ! -e $merged/var/lib/pushseal-gateway && ! -e $merged/etc/pushseal-gateway ]] || fail "dpkg -P left data behind"
echo "package-check: dpkg -r kept the database and the keys; dpkg -P removed them"
INSIDE
