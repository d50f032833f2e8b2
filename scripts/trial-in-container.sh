#!/usr/bin/env bash
# The trial image's command (/usr/bin/pushseal-trial; scripts/trial-container.sh starts it): the
# local trial of scripts/trial.sh inside the container, in PUSHSEAL_TRIAL_DIR, which the host
# mounts at the same path so that every path in .trial/env means the same on both sides. It adds
# .trial/bin/pushseal and .trial/bin/pushseal-gateway, which run the CLI in this container from
# the host's shell (in the host's working directory, under .trial/), then waits for SIGTERM.
set -euo pipefail
trial=${PUSHSEAL_TRIAL_DIR:?names the .trial directory of the host, mounted at the same path}
container=${PUSHSEAL_TRIAL_CONTAINER:-pushseal-trial}
export PUSHSEAL_BIN=/usr/bin PEER_PYTHON=/usr/bin/python3 PUSHSEAL_TRIAL_LISTEN=0.0.0.0
export PUSHSEAL_TRIAL_PATH=$trial/bin
trial_script=/usr/share/pushseal-trial/scripts/trial.sh

"$trial_script" start
mkdir -p "$trial/bin.new"
for program in pushseal pushseal-gateway; do
    cat > "$trial/bin.new/$program" <<WRAPPER
#!/bin/sh
# $program, run in the trial's container ($container) by \${PUSHSEAL_DOCKER:-docker}, in this directory.
exec "\${PUSHSEAL_DOCKER:-${PUSHSEAL_DOCKER:-docker}}" exec -i -w "\$PWD" $container $program "\$@"
WRAPPER
    chmod 755 "$trial/bin.new/$program"
done
# Whole or not at all: the host waits for bin/ to appear.
mv "$trial/bin.new" "$trial/bin"

trap '"$trial_script" stop-processes; exit 0' TERM INT
sleep infinity &
wait $!
