#!/usr/bin/env bash
# `make trial-image`: the local trial as a container image, for a Mac (Docker Desktop or podman)
# or any machine where `make trial` cannot build: the gateway's image (`make image`) with one
# layer more, the trial's stand-ins (interop/python's APNs stand-in, Web Push service and HTTPS
# front) on Debian's python3, python3-h2 and python3-cryptography, http_ece from PyPI, and
# scripts/trial.sh, started by /usr/bin/pushseal-trial (scripts/trial-in-container.sh). It runs
# as root, with a shell: it is a trial, never a deployment. Writes
#   .build/image/pushseal-trial-<version>-<arch>.tar   for docker load or podman load
# and loads it into podman's storage as localhost/pushseal-trial:<version>.
# scripts/trial-container.sh runs it (`make trial` on macOS, or with PUSHSEAL_TRIAL=container).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=image-lib.sh
source "$root/scripts/image-lib.sh"
arch=$(dpkg --print-architecture)
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct)}
base=localhost/pushseal-gateway:$version
tag=localhost/pushseal-trial:$version
out=$root/.build/image
archive=$out/pushseal-trial-$version-$arch.tar
# The stand-ins' one package that Debian does not have, pure Python.
http_ece=http-ece==1.2.1
podman image exists "$base" || { echo "trial-image.sh: $base is missing: run make image" >&2; exit 1; }

work=$(mktemp -d)
container=""
cleanup() {
    [[ -n $container ]] && buildah rm "$container" > /dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$out"

# What the stand-ins and trial.sh run with, unpacked (no maintainer script runs); /bin/sh is
# dash's maintainer script's to make, so it is made here.
layer=$work/root
debian_extract "$layer" \
    python3,python3-h2,python3-hyperframe,python3-cryptography,bash,coreutils,util-linux,findutils,curl
rm -rf "$layer/var/cache/apt" "$layer/var/lib/apt/lists" "$layer/usr/share/man" "$layer/usr/share/info" \
    "$layer/usr/share/locale" "$layer/dev" "$layer/etc/passwd" "$layer/etc/group"
ln -sf bash "$layer/bin/sh"
python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --no-compile \
    --target "$layer/usr/lib/python3/dist-packages" "$http_ece"
share=$layer/usr/share/pushseal-trial
install -D -m 0755 "$root/scripts/trial.sh" "$share/scripts/trial.sh"
for stand_in in mock_apns mock_push_service tls_front webpush_peer; do
    install -D -m 0644 "$root/interop/python/$stand_in.py" "$share/interop/python/$stand_in.py"
done
install -D -m 0755 "$root/scripts/trial-in-container.sh" "$layer/usr/bin/pushseal-trial"
find "$layer" -newermt "@$epoch" -print0 | xargs -0 touch --no-dereference --date="@$epoch"
tar --sort=name --format=posix --numeric-owner --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    --mtime="@$epoch" --clamp-mtime -C "$layer" -cf "$work/layer.tar" .

container=$(buildah from --format docker "$base")
buildah add --quiet "$container" "$work/layer.tar" / > /dev/null
# The gateway's command goes first, or buildah would pass it to the new entry point. The trial
# keeps everything in .trial/, so the gateway's volume goes: no anonymous volume is left behind.
buildah config --cmd '[]' "$container"
buildah config --user 0:0 --workingdir / --env PATH=/usr/bin:/bin \
    --entrypoint '["/usr/bin/pushseal-trial"]' --port 8480/tcp --healthcheck NONE \
    --volume /var/lib/pushseal-gateway- \
    --label org.opencontainers.image.title=pushseal-trial \
    --label "org.opencontainers.image.description=The PushSeal trial: pushseal-gateway beside local stand-ins of APNs and a Web Push service" \
    "$container"
buildah commit --quiet --format docker --timestamp "$epoch" --rm "$container" "$tag" > /dev/null
container=""
rm -f "$archive"
buildah push --quiet --format v2s2 "$tag" "docker-archive:$archive:$tag" > /dev/null
echo "trial-image.sh: $archive ($(du -m "$archive" | cut -f1) MB), $tag"
