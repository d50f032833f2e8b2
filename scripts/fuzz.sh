#!/usr/bin/env bash
# Builds the libFuzzer targets (with AddressSanitizer) and runs each for FUZZ_SECONDS.
# The seed corpus comes from Vectors/envelope-v1.json; crashes are kept in .build/fuzz/crashes,
# and each one belongs in Tests/PushSealDecryptorTests/FuzzRegressions as a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
build=.build/fuzz
vectors=Tests/PushSealCoreTests/Vectors/envelope-v1.json

PUSHSEAL_FUZZ=1 swift build -c debug --build-path "$build/build" \
    --sanitize=fuzzer --sanitize=address \
    --product FuzzDecrypt 2>&1 | grep -vE "^\[|ld.gold: warning" || true
PUSHSEAL_FUZZ=1 swift build -c debug --build-path "$build/build" \
    --sanitize=fuzzer --sanitize=address \
    --product FuzzEnvelope 2>&1 | grep -vE "^\[|ld.gold: warning" || true
bin=$(PUSHSEAL_FUZZ=1 swift build -c debug --build-path "$build/build" --show-bin-path)

python3 - "$vectors" "$build" <<'PY'
import base64, json, os, sys
vectors, build = sys.argv[1], sys.argv[2]
document = json.load(open(vectors))
for name in ("decrypt", "envelope"):
    os.makedirs(f"{build}/corpus-{name}", exist_ok=True)
for index, vector in enumerate(document["positive"] + document["negative"]):
    text = vector["envelope"]
    outer = {"aps": {"alert": {"title": "New notification", "body": "Open the app"}, "mutable-content": 1}, "enc": text}
    open(f"{build}/corpus-decrypt/vector-{index}", "w").write(json.dumps(outer, separators=(",", ":")))
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)) if text else b""
    open(f"{build}/corpus-envelope/vector-{index}", "wb").write(raw)
PY

# Leak detection is off: the key ring lives in a global for the whole run, and Swift keeps
# multi-payload enum tags in pointer spare bits, so LeakSanitizer cannot follow those pointers
# and reports the ring's keys as leaked. Growth per input is still caught by -rss_limit_mb.
mkdir -p "$build/crashes"
status=0
for target in decrypt envelope; do
    binary=$bin/Fuzz$(tr '[:lower:]' '[:upper:]' <<<"${target:0:1}")${target:1}
    echo "fuzz: $target for ${seconds}s"
    ASAN_OPTIONS=detect_leaks=0 PUSHSEAL_FUZZ_VECTORS=$vectors "$binary" "$build/corpus-$target" \
        -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 \
        -artifact_prefix="$build/crashes/$target-" -print_final_stats=1 2>"$build/$target.log" || status=$?
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|ERROR|SUMMARY" "$build/$target.log" || true
    [[ $status -eq 0 ]] || { echo "fuzz: $target found a crash: see $build/$target.log and $build/crashes"; exit "$status"; }
done
echo "fuzz: no crash in ${seconds}s per target"
