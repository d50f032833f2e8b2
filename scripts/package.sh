#!/usr/bin/env bash
# `make package`: the Debian packages of the release build, with Debian's own tools:
#   .build/package/pushseal-gateway_<version>_<arch>.deb   the gateway, its systemd unit, an example
#                                                          configuration (a conffile), the system
#                                                          user and the state directory
#   .build/package/pushseal_<version>_<arch>.deb           the command line
# Depends: comes from dpkg-shlibdeps (the libraries the binaries link), plus adduser for the
# gateway's maintainer scripts. lintian --pedantic checks both and fails the build on any tag
# that packaging/debian/*.lintian-overrides does not explain.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
release=${PUSHSEAL_BIN:-$root/.build/release}
out=$root/.build/package
version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' "$root/Sources/PushSealCore/PushSealRelease.swift")
arch=$(dpkg --print-architecture)
maintainer="PushSeal maintainers <maintainers@pushseal.example>"
[[ -n $version ]] || { echo "package.sh: no version in PushSealRelease.swift" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"

# The Depends of `binary`, as dpkg-shlibdeps computes it from the libraries it links.
depends() {
    local scratch
    scratch=$(mktemp -d)
    mkdir -p "$scratch/debian" "$scratch/stage/DEBIAN" "$scratch/stage/usr/bin"
    printf 'Source: pushseal\n\nPackage: pushseal\nArchitecture: any\n' > "$scratch/debian/control"
    cp "$1" "$scratch/stage/usr/bin/"
    (cd "$scratch" && dpkg-shlibdeps -O "stage/usr/bin/$(basename "$1")" 2> /dev/null) | sed 's/^shlibs:Depends=//'
    rm -rf "$scratch"
}

# The changelog.gz of `package` (a native package: its version has no Debian revision), pointing
# at CHANGELOG.md.
changelog() {
    local package=$1 target=$2
    {
        echo "$package ($version) stable; urgency=medium"
        echo
        echo "  * Release $version: see /usr/share/doc/$package/CHANGELOG.md."
        echo
        echo " -- $maintainer  $(date -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct)}")"
    } | gzip -9n > "$target"
}

# The machine-readable copyright file: the project's licence, Apache 2.0, as Debian ships it.
copyright() {
    cat > "$1" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: PushSeal
Comment: Third-party notices: NOTICE.txt in the source.

Files: *
Copyright: 2026 The PushSeal authors
License: Apache-2.0
 On Debian systems, the full text of the Apache License, Version 2.0 is in
 /usr/share/common-licenses/Apache-2.0.
COPYRIGHT
}

# Strips `binary` as dh_strip does: symbols not needed to run, and the .comment and .note sections.
strip_binary() {
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$1"
}

# Builds the package `name` from the staging directory `stage`, with the md5sums of its files
# (as dh_md5sums writes them, for debsums and dpkg --verify).
build() {
    local name=$1 stage=$2
    find "$stage" -type d -exec chmod 0755 {} +
    (cd "$stage" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) \
        > "$stage/DEBIAN/md5sums"
    chmod 0644 "$stage/DEBIAN/md5sums"
    dpkg-deb --root-owner-group --build "$stage" "$out/${name}_${version}_${arch}.deb" > /dev/null
    echo "package.sh: $out/${name}_${version}_${arch}.deb"
}

# --- pushseal-gateway ---------------------------------------------------------------------------
stage=$out/stage-gateway
doc=$stage/usr/share/doc/pushseal-gateway
install -D -m 0755 "$release/pushseal-gateway" "$stage/usr/bin/pushseal-gateway"
strip_binary "$stage/usr/bin/pushseal-gateway"
install -d "$stage/lib/systemd/system" "$doc/examples" "$stage/usr/share/lintian/overrides"
sed -e 's|/usr/local/bin/pushseal-gateway|/usr/bin/pushseal-gateway|g' \
    -e 's|^Documentation=.*|Documentation=file:///usr/share/doc/pushseal-gateway/operations.md|' \
    -e 's|^# pushseal-gateway under systemd.*|# pushseal-gateway under systemd, as its Debian package installs it (docs/operations.md).|' \
    "$root/deploy/pushseal-gateway.service" > "$stage/lib/systemd/system/pushseal-gateway.service"
chmod 0644 "$stage/lib/systemd/system/pushseal-gateway.service"
install -D -m 0644 "$root/packaging/debian/gateway.json" "$stage/etc/pushseal-gateway/gateway.json"
for file in docs/gateway-v1.md docs/gateway-v1.openapi.json docs/operations.md docs/backend.md CHANGELOG.md; do
    install -m 0644 "$root/$file" "$doc/"
done
for file in nginx-pushseal-gateway.conf prometheus.yml prometheus-alerts.yml grafana-dashboard.json gateway.example.json; do
    install -m 0644 "$root/deploy/$file" "$doc/examples/"
done
copyright "$doc/copyright"
changelog pushseal-gateway "$doc/changelog.gz"
install -m 0644 "$root/packaging/debian/pushseal-gateway.lintian-overrides" \
    "$stage/usr/share/lintian/overrides/pushseal-gateway"
install -d "$stage/DEBIAN"
for script in postinst prerm postrm; do
    install -m 0755 "$root/packaging/debian/pushseal-gateway.$script" "$stage/DEBIAN/$script"
done
echo /etc/pushseal-gateway/gateway.json > "$stage/DEBIAN/conffiles"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: pushseal-gateway
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk "$stage" | cut -f1)
Depends: adduser, $(depends "$release/pushseal-gateway")
Recommends: ca-certificates
Section: net
Priority: optional
Description: end-to-end encrypted push notifications: the gateway
 pushseal-gateway is the HTTP service a backend calls to register devices and
 their public keys and to push to a user. It seals each push for each device's
 key (APNs, and Web Push for browsers and Android), stores only ciphertext,
 delivers through a durable outbox, and drops dead tokens. It runs on SQLite,
 or on PostgreSQL for several instances.
CONTROL
build pushseal-gateway "$stage"

# --- pushseal -----------------------------------------------------------------------------------
stage=$out/stage-cli
doc=$stage/usr/share/doc/pushseal
install -D -m 0755 "$release/pushseal" "$stage/usr/bin/pushseal"
strip_binary "$stage/usr/bin/pushseal"
install -d "$doc" "$stage/usr/share/lintian/overrides" "$stage/DEBIAN"
for file in docs/cli-v1.md docs/envelope-v1.md docs/webpush-v1.md docs/media-v1.md docs/contract-v1.md CHANGELOG.md; do
    install -m 0644 "$root/$file" "$doc/"
done
copyright "$doc/copyright"
changelog pushseal "$doc/changelog.gz"
install -m 0644 "$root/packaging/debian/pushseal.lintian-overrides" "$stage/usr/share/lintian/overrides/pushseal"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: pushseal
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk "$stage" | cut -f1)
Depends: $(depends "$release/pushseal")
Section: utils
Priority: optional
Description: end-to-end encrypted push notifications: the command line
 pushseal seals APNs payloads and Web Push messages for a device's key, sends
 them, and opens captured ones for support, from any language's backend.
CONTROL
build pushseal "$stage"
rm -rf "$out/stage-gateway" "$out/stage-cli"

# lintian, pedantic tags included, must find nothing that packaging/debian/*.lintian-overrides
# does not explain (make package installs it: make deps-package).
lintian --pedantic --display-info --fail-on error,warning,info,pedantic "$out"/*.deb
