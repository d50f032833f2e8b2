#!/usr/bin/env bash
# `make image`: the container image of pushseal-gateway and pushseal, from Debian's archive alone
# (no base image is pulled), written as an image archive that `podman load` and `docker load`
# both read:
#   .build/image/pushseal-gateway-<version>-<arch>.tar   the archive (docker-archive format)
#   .build/image/pushseal-gateway-<version>-<arch>.digest its manifest's digest (sha256:…)
#   .build/image/packages.txt                            the Debian packages its files come from
# and loaded into podman's storage as localhost/pushseal-gateway:<version> (PUSHSEAL_IMAGE_OUT
# writes the files elsewhere and loads nothing: image-check.sh builds twice and compares).
#
# As distroless images are made: the release binaries (stripped, as their Debian package strips
# them), the shared libraries they load and nothing else of the packages that hold them, taken
# from Debian's packages by mmdebstrap (--variant=extract, no maintainer script runs), the CA
# certificates, /etc/passwd with the non-root user pushseal (10001), and each package's copyright
# and a dpkg status entry (/var/lib/dpkg/status.d, which image scanners read). No shell, no
# package manager: the health check is `pushseal-gateway health`.
#
# Reproducible: every timestamp is SOURCE_DATE_EPOCH (the last commit's time by default), files
# are in name order with numeric owners, the binaries carry nothing of the checkout's path, and
# buildah's random fields (the build container's id, and the host name made from it, in the
# Docker configuration) are dropped; two builds from one commit, in any directory, against the
# same state of the archive give the same digest. PUSHSEAL_IMAGE_MIRROR and
# PUSHSEAL_IMAGE_SECURITY_MIRROR choose the archive (snapshot.debian.org, to rebuild an old
# image); packages.txt says what versions it served.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
release=${PUSHSEAL_BIN:-$root/.build/release}
out=${PUSHSEAL_IMAGE_OUT:-$root/.build/image}
# shellcheck source=image-lib.sh
source "$root/scripts/image-lib.sh"
arch=$(dpkg --print-architecture)
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct)}
revision=$(git -C "$root" rev-parse HEAD)
source_url=${PUSHSEAL_IMAGE_SOURCE:-https://pushseal.example/source}
user=10001
name=pushseal-gateway
tag=localhost/$name:$version
archive=$out/$name-$version-$arch.tar
[[ -n $version ]] || { echo "image.sh: no version in PushSealRelease.swift" >&2; exit 1; }
for program in "$release/pushseal" "$release/pushseal-gateway"; do
    [[ -x $program ]] || { echo "image.sh: $program is missing: run make image, which builds it" >&2; exit 1; }
done
export SOURCE_DATE_EPOCH=$epoch

work=$(mktemp -d)
container=""
cleanup() {
    [[ -n $container ]] && buildah rm "$container" > /dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$out"
rm -f "$archive" "${archive%.tar}.digest" "$out/packages.txt"

# The packages of the libraries the binaries link (dpkg-shlibdeps, as the .deb's Depends), and
# the CA certificates the gateway trusts APNs and push services with.
mkdir -p "$work/shlibs/debian" "$work/shlibs/stage/usr/bin"
printf 'Source: pushseal\n\nPackage: pushseal\nArchitecture: any\n' > "$work/shlibs/debian/control"
cp "$release/pushseal" "$release/pushseal-gateway" "$work/shlibs/stage/usr/bin/"
packages=$(cd "$work/shlibs" && dpkg-shlibdeps -O stage/usr/bin/pushseal stage/usr/bin/pushseal-gateway 2> /dev/null |
    sed 's/^shlibs:Depends=//; s/ ([^)]*)//g; s/, /,/g')
packages+=",ca-certificates"

# The packages and their dependencies, unpacked (no maintainer script runs), their .debs kept to
# tell which package each file comes from.
debian_extract "$work/debian" "$packages" --skip=cleanup/apt/cache
debs=$work/debian/var/cache/apt/archives

# The image's root: the binaries, then what the dynamic loader loads for them, inside Debian's.
image=$work/root
mkdir -p "$image/usr/bin"
for binary in pushseal pushseal-gateway; do
    install -m 0755 "$release/$binary" "$image/usr/bin/$binary"
    # Also without what holds the checkout's path (its hash): the build id and Swift's module
    # hashes, which only a debugger reads. The same commit built in another directory then gives
    # the same bytes.
    strip --strip-unneeded --remove-section=.comment --remove-section=.note --remove-section=.note.gnu.build-id \
        --remove-section=.swift_modhash "$image/usr/bin/$binary"
    install -m 0755 "$image/usr/bin/$binary" "$work/debian/usr/bin/$binary"
done

# Copies `path` of Debian's root into the image's, with every symbolic link on the way to the file
# (to a directory: the directory, empty).
copy_from_debian() {
    local path=$1
    while :; do
        # A link to what no package ships (cert.pem, to the bundle made below) ends the walk.
        [[ -e $work/debian$path || -L $work/debian$path ]] || return 0
        if [[ -d $work/debian$path && ! -L $work/debian$path ]]; then
            mkdir -p "$image$path"
            return 0
        fi
        (cd "$work/debian" && cp -P --parents ".$path" "$image/")
        [[ -L $work/debian$path ]] || return 0
        local target
        target=$(readlink "$work/debian$path")
        [[ $target == /* ]] || target=$(dirname "$path")/$target
        path=$(realpath -m --no-symlinks "$target")
    done
}
loaded=$(for binary in pushseal pushseal-gateway; do
    chroot "$work/debian" /lib64/ld-linux-x86-64.so.2 --list "/usr/bin/$binary"
done | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }' | LC_ALL=C sort -u)
for path in $loaded; do
    [[ -e $work/debian$path ]] || { echo "image.sh: $path is loaded but not in Debian's root" >&2; exit 1; }
    copy_from_debian "$path"
done
for path in /usr/lib/ssl/certs /usr/lib/ssl/cert.pem; do copy_from_debian "$path"; done

# The CA certificates, as update-ca-certificates bundles them: every certificate ca-certificates ships.
mkdir -p "$image/etc/ssl/certs"
for certificate in $(cd "$work/debian/usr/share/ca-certificates" && LC_ALL=C ls mozilla/*.crt); do
    cat "$work/debian/usr/share/ca-certificates/$certificate"
done > "$image/etc/ssl/certs/ca-certificates.crt"

# Users, name service, and the gateway's directories: configuration (read-only, root's), data (a
# volume, the user's), and /tmp.
mkdir -p "$image/etc" "$image/etc/pushseal-gateway" "$image/var/lib/pushseal-gateway" "$image/tmp"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\npushseal:x:%s:%s:pushseal-gateway:/var/lib/pushseal-gateway:/usr/sbin/nologin\n' \
    "$user" "$user" > "$image/etc/passwd"
printf 'root:x:0:\npushseal:x:%s:\n' "$user" > "$image/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$image/etc/nsswitch.conf"
chown "$user:$user" "$image/var/lib/pushseal-gateway"
chmod 0700 "$image/var/lib/pushseal-gateway"
chmod 1777 "$image/tmp"

# Which package each file of the image comes from: their copyright files and status entries.
: > "$work/owners"
(cd "$image" && find . ! -type d | sed 's|^\.||' | LC_ALL=C sort) > "$work/image-files"
for deb in "$debs"/*.deb; do
    dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -n 's|^\./|/|p' | LC_ALL=C sort > "$work/deb-files"
    if [[ -n $(LC_ALL=C comm -12 "$work/image-files" "$work/deb-files") ]]; then
        dpkg-deb --field "$deb" Package >> "$work/owners"
    fi
done
echo ca-certificates >> "$work/owners"  # the bundle is made of its certificates
mkdir -p "$image/var/lib/dpkg/status.d" "$image/usr/share/doc"
: > "$out/packages.txt"
for package in $(LC_ALL=C sort -u "$work/owners"); do
    deb=$(ls "$debs/${package}_"*.deb)
    dpkg-deb --field "$deb" Package Version Architecture Source Maintainer Homepage \
        > "$image/var/lib/dpkg/status.d/$package"
    echo "$package $(dpkg-deb --field "$deb" Version)" >> "$out/packages.txt"
    if [[ -e $work/debian/usr/share/doc/$package/copyright ]]; then
        mkdir -p "$image/usr/share/doc/$package"
        cp "$work/debian/usr/share/doc/$package/copyright" "$image/usr/share/doc/$package/"
    fi
done
install -D -m 0644 "$root/LICENSE" "$image/usr/share/doc/pushseal-gateway/LICENSE"
install -m 0644 "$root/NOTICE.txt" "$image/usr/share/doc/pushseal-gateway/NOTICE.txt"

# The one layer, in name order, numeric owners, every time the epoch.
find "$image" -newermt "@$epoch" -print0 | xargs -0 touch --no-dereference --date="@$epoch"
tar --sort=name --format=posix --numeric-owner --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    --mtime="@$epoch" --clamp-mtime -C "$image" -cf "$work/layer.tar" .

container=$(buildah from --format docker scratch)
buildah add --quiet "$container" "$work/layer.tar" / > /dev/null
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
config="/etc/pushseal-gateway/gateway.json"
buildah config \
    --user "$user:$user" --workingdir /var/lib/pushseal-gateway \
    --env PATH=/usr/bin \
    --entrypoint '["/usr/bin/pushseal-gateway"]' --cmd "[\"serve\", \"--config\", \"$config\"]" \
    --port 8080/tcp --port 9464/tcp --volume /var/lib/pushseal-gateway --stop-signal SIGTERM \
    --healthcheck "CMD /usr/bin/pushseal-gateway health --config $config" \
    --healthcheck-interval 30s --healthcheck-timeout 10s --healthcheck-start-period 10s --healthcheck-retries 3 \
    --label org.opencontainers.image.title=pushseal-gateway \
    --label "org.opencontainers.image.description=End-to-end encrypted push notifications: the gateway (pushseal-gateway) and the CLI (pushseal)" \
    --label "org.opencontainers.image.version=$version" \
    --label "org.opencontainers.image.revision=$revision" \
    --label "org.opencontainers.image.created=$created" \
    --label "org.opencontainers.image.source=$source_url" \
    --label "org.opencontainers.image.documentation=$source_url/docs/operations.md" \
    --label "org.opencontainers.image.licenses=Apache-2.0" \
    --label "org.opencontainers.image.base.name=scratch" \
    --label io.buildah.version- \
    "$container"
build=$name-build-$$
buildah commit --quiet --format docker --timestamp "$epoch" --identity-label=false "$container" "$build" > /dev/null
buildah rm "$container" > /dev/null
container=""

# Without buildah's random fields: the configuration loses "container" (the build container's id)
# and the host name made from it, and the manifest names the configuration by its new digest.
buildah push --quiet --format v2s2 "$build" "dir:$work/dir" > /dev/null
buildah rmi "$build" > /dev/null
manifest=$work/dir/manifest.json
old=$(jq -r .config.digest "$manifest")
jq -cj 'del(.container, .config.Hostname, .container_config.Hostname)' "$work/dir/${old#sha256:}" > "$work/config.json"
new=sha256:$(sha256sum "$work/config.json" | cut -d' ' -f1)
rm "$work/dir/${old#sha256:}"
mv "$work/config.json" "$work/dir/${new#sha256:}"
jq -cj --arg digest "$new" --argjson size "$(stat -c %s "$work/dir/${new#sha256:}")" \
    '.config.digest = $digest | .config.size = $size' "$manifest" > "$work/manifest.json"
mv "$work/manifest.json" "$manifest"

skopeo copy --quiet "dir:$work/dir" "docker-archive:$archive:$tag"
skopeo inspect --format '{{.Digest}}' "docker-archive:$archive" > "${archive%.tar}.digest"
if [[ -z ${PUSHSEAL_IMAGE_OUT:-} ]]; then
    podman rmi --force "$tag" > /dev/null 2>&1 || true
    podman load --quiet --input "$archive" > /dev/null
fi
echo "image.sh: $archive ($(du -m "$archive" | cut -f1) MB), $tag, $(cat "${archive%.tar}.digest")"
