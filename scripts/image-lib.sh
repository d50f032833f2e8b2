# Shared by the container scripts (image.sh, trial-image.sh, image-check.sh, compose-check.sh):
# source it, after setting `root` to the checkout. Defines:
#   version                the release (PushSealRelease.version)
#   debian_extract DIR PACKAGES [MMDEBSTRAP OPTION…]
#                          Debian 12's PACKAGES (comma-separated) and their dependencies unpacked
#                          into DIR by mmdebstrap --variant=extract: no maintainer script runs.
#                          PUSHSEAL_IMAGE_MIRROR and PUSHSEAL_IMAGE_SECURITY_MIRROR choose the
#                          archive (snapshot.debian.org, to rebuild an old image)
#   wait_for SECONDS COMMAND…
#                          runs COMMAND until it succeeds, for at most SECONDS; 1 when it never did
version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' "$root/Sources/PushSealCore/PushSealRelease.swift")
suite=bookworm
mirror=${PUSHSEAL_IMAGE_MIRROR:-http://deb.debian.org/debian}
security=${PUSHSEAL_IMAGE_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

debian_extract() {
    local directory=$1 packages=$2
    shift 2
    mmdebstrap --quiet --variant=extract --format=directory --include="$packages" "$@" "$suite" "$directory" \
        "deb $mirror $suite main" "deb $mirror $suite-updates main" "deb $security $suite-security main"
}

wait_for() {
    local seconds=$1
    shift
    local deadline=$((SECONDS + seconds))
    until "$@" > /dev/null 2>&1; do
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}
