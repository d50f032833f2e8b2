#!/usr/bin/env bash
# The local trial in a container: what `make trial` runs on macOS (Docker Desktop or podman), or
# anywhere with PUSHSEAL_TRIAL=container. It starts the trial image (`make trial-image` on Linux,
# or `docker load` of its archive) as the container pushseal-trial, with the checkout's .trial/
# mounted at the same path and the gateway published on 127.0.0.1:8480 (PUSHSEAL_TRIAL_PORT), and
# waits until .trial/env is written: then the README's "Five minutes" and docs/ios.md's
# simulator path run as written, `pushseal` and `pushseal-gateway` being .trial/bin's wrappers
# that run them in the container. PUSHSEAL_DOCKER names the engine's command (docker, else podman).
# `start` replaces a trial already running; `stop` ends it and removes .trial/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
trial=$root/.trial
version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' "$root/Sources/PushSealCore/PushSealRelease.swift")
image=${PUSHSEAL_TRIAL_IMAGE:-localhost/pushseal-trial:$version}
port=${PUSHSEAL_TRIAL_PORT:-8480}
name=pushseal-trial
if [[ -z ${PUSHSEAL_DOCKER:-} ]]; then
    PUSHSEAL_DOCKER=docker
    command -v docker > /dev/null || PUSHSEAL_DOCKER=podman
fi
engine=$PUSHSEAL_DOCKER

fail() {
    echo "make trial: $1" >&2
    exit 1
}

stop() {
    "$engine" rm --force --volumes --time 30 "$name" > /dev/null 2>&1 || true
}

start() {
    command -v "$engine" > /dev/null || fail "neither docker nor podman is installed (PUSHSEAL_DOCKER names another)"
    "$engine" info > /dev/null 2>&1 || fail "$engine does not answer: start Docker Desktop (or podman machine start)"
    "$engine" image inspect "$image" > /dev/null 2>&1 ||
        fail "$image is not loaded: $engine load --input pushseal-trial-$version-amd64.tar (the release's), or make trial-image on Linux"
    stop
    rm -rf "$trial"
    mkdir -m 700 "$trial"
    "$engine" run --detach --name "$name" --platform linux/amd64 --publish "127.0.0.1:$port:$port" \
        --volume "$trial:$trial" --env "PUSHSEAL_TRIAL_DIR=$trial" --env "PUSHSEAL_TRIAL_PORT=$port" \
        --env "PUSHSEAL_CHECKOUT=$root" --env "PUSHSEAL_DOCKER=$engine" --env "PUSHSEAL_TRIAL_CONTAINER=$name" \
        "$image" > /dev/null
    for _ in $(seq 1 600); do
        [[ -x $trial/bin/pushseal ]] && break
        "$engine" container inspect --format '{{.State.Running}}' "$name" 2> /dev/null | grep -q true ||
            fail "the trial's container stopped: $("$engine" logs "$name" 2>&1 | tail -n 20)"
        sleep 0.1
    done
    [[ -x $trial/bin/pushseal ]] || fail "the trial did not start in 60 s: $("$engine" logs "$name" 2>&1 | tail -n 20)"
    cat <<DONE
The trial is running in the container $name: pushseal-gateway on http://127.0.0.1:$port, a local
APNs (its pushes in .trial/apns/) and a local Web Push service (.trial/push-service/); pushseal
and pushseal-gateway in .trial/bin run in the container. Next: source .trial/env, then the README's
"Five minutes". Stop it with make trial-stop.
DONE
}

case ${1:-} in
    start) start ;;
    stop) stop; rm -rf "$trial" ;;
    *) echo "usage: scripts/trial-container.sh start|stop" >&2; exit 2 ;;
esac
