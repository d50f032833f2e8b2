#!/usr/bin/env bash
# deploy/'s files checked by the nginx, promtool and prometheus of Debian's current stable release
# (13, trixie: nginx 1.26, Prometheus 2.53), as `make test` checks them with this machine's
# Debian 12 ones (nginx 1.22, Prometheus 2.42): an operator may run either.
#
# The release's root is made once by debootstrap from Debian's archive (minbase and those two
# packages, some 40 s and 460 MB) and kept in $PUSHSEAL_CHECK_CACHE (/var/cache/pushseal-checks).
# Then, in a mount namespace of its own, /tmp and the checkout are bound into that root at the
# same paths, and DeploymentFilesTests runs with PUSHSEAL_DEPLOY_TOOLS_ROOT naming it: each tool
# runs there by chroot, against files and a gateway on this machine. Needs the test build
# (`swift build --build-tests`) and root, for debootstrap, mounts and chroot: as make deps does,
# it asks sudo when not root.
set -euo pipefail
checkout=$(cd "$(dirname "$0")/.." && pwd)
release=${PUSHSEAL_STABLE_RELEASE:-trixie}
cache=${PUSHSEAL_CHECK_CACHE:-/var/cache/pushseal-checks}
packages=nginx-light,prometheus
target=$cache/debian-$release
if [[ $(id -u) != 0 ]]; then
    exec sudo --preserve-env=PUSHSEAL_STABLE_RELEASE,PUSHSEAL_CHECK_CACHE,PATH "$0" "$@"
fi
fail() { echo "deploy-check-stable: $*" >&2; exit 1; }

# The root, unless a complete one with these packages is there: a half-made one is made again.
stamp="$target/.pushseal-check $packages"
if [[ ! -f $stamp ]]; then
    command -v debootstrap > /dev/null || { apt-get update -q && apt-get install -y -q debootstrap; } > /dev/null
    # Never remove a tree with something mounted in it (a /tmp bound there would go with it).
    if findmnt -rno TARGET | grep -q "^$cache/"; then fail "something is mounted under $cache"; fi
    rm -rf "$target" "$target.partial"
    mkdir -p "$cache"
    echo "deploy-check-stable: making a Debian $release root in $target (once)"
    debootstrap --variant=minbase --include="$packages" "$release" "$target.partial" http://deb.debian.org/debian \
        > "$cache/debootstrap-$release.log" 2>&1 || fail "debootstrap failed: $cache/debootstrap-$release.log"
    mv "$target.partial" "$target"
    touch "$stamp"
fi
echo "deploy-check-stable: Debian $(cat "$target/etc/debian_version"), $(chroot "$target" nginx -v 2>&1 | sed 's/^nginx version: //'), $(chroot "$target" promtool --version 2>&1 | head -1 | cut -d' ' -f1-3)"

unshare --mount --propagation private bash -s -- "$target" "$checkout" <<'INSIDE'
set -euo pipefail
target=$1 checkout=$2
mount --bind /tmp "$target/tmp"
mount --bind /proc "$target/proc"
mount --rbind /dev "$target/dev"
mkdir -p "$target$checkout"
mount --bind "$checkout" "$target$checkout"
cd "$checkout"
PUSHSEAL_DEPLOY_TOOLS_ROOT=$target swift test --skip-build --filter DeploymentFilesTests
INSIDE
