#!/usr/bin/env bash
# Builds the API documentation of the public modules from their doc comments with the
# toolchain's docc (no SwiftPM plugin needed): symbol graphs, then one archive per module.
set -euo pipefail
cd "$(dirname "$0")/.."

swift package dump-symbol-graph --minimum-access-level public >/dev/null
graphs=$(find .build -maxdepth 2 -type d -name symbolgraph | head -n 1)
output=.build/docs
rm -rf "$output"
mkdir -p "$output"

for module in PushSealCore PushSealEncryptor PushSealDecryptor PushSealDelivery PushSealGateway; do
    module_graphs=$(mktemp -d)
    cp "$graphs/$module".symbols.json "$module_graphs/"
    catalog=Sources/$module/Docs.docc
    [[ -d $catalog ]] || catalog=$(mktemp -d)
    docc convert "$catalog" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "dev.pushseal.$module" \
        --additional-symbol-graph-dir "$module_graphs" \
        --output-path "$output/$module.doccarchive" \
        --warnings-as-errors >/dev/null
    rm -rf "$module_graphs"
    echo "documentation: $output/$module.doccarchive"
done
