#!/usr/bin/env bash
# Builds the libFuzzer targets (with AddressSanitizer) and runs each for FUZZ_SECONDS (a smoke run,
# `make fuzz`), or for FUZZ_RUNS executions (a campaign, `make fuzz-long`), the targets of
# FUZZ_TARGETS (all, by default) in that order.
# The seed corpus comes from Vectors/envelope-v1.json (and, for the key store, key files made
# here), and from the corpus campaigns grew, kept in Fuzz/corpus/<target>; with FUZZ_KEEP_CORPUS=1
# what a run found that reaches new code is merged into Fuzz/corpus/<target> (libFuzzer's -merge:
# the fewest inputs that keep the coverage). Crashes are kept in .build/fuzz/crashes,
# and each one belongs in Tests/PushSealDecryptorTests/FuzzRegressions as a regression test.
# A target's dictionary, Fuzz/<target>.dict, is used when present.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
runs=${FUZZ_RUNS:-}
targets=${FUZZ_TARGETS:-decrypt envelope keystore media http webpush relay fetch}
keep_corpus=${FUZZ_KEEP_CORPUS:-0}
# An input that runs longer than this is reported as a hang. A campaign runs niced beside other
# work for hours, and a starved process once stood still 20 s on an input that takes 0.1 s: it
# takes a longer one (FUZZ_TIMEOUT).
timeout=${FUZZ_TIMEOUT:-10}
build=.build/fuzz
vectors=Tests/PushSealCoreTests/Vectors/envelope-v1.json

# The Swift driver keeps only the last -sanitize= it is given, so SwiftPM's separate
# --sanitize=fuzzer --sanitize=address compile with AddressSanitizer alone, with no coverage
# instrumentation, and libFuzzer then mutates blindly ("Is the code instrumented for coverage?").
# The combined -sanitize=fuzzer,address, passed last, instruments every Swift module; SwiftPM's
# --sanitize=fuzzer is still needed so that it links libFuzzer's main instead of the target's.
sanitize=(--sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address)
mkdir -p "$build"
for product in FuzzDecrypt FuzzEnvelope FuzzKeyStore FuzzMedia FuzzHTTP FuzzWebPush FuzzRelay FuzzFetch; do
    if ! PUSHSEAL_FUZZ=1 swift build -c debug --build-path "$build/build" "${sanitize[@]}" --product "$product" \
        >"$build/$product-build.log" 2>&1; then
        grep -vE "^\[|ld.gold: warning" "$build/$product-build.log"
        echo "fuzz: $product does not build"
        exit 1
    fi
done
bin=$(PUSHSEAL_FUZZ=1 swift build -c debug --build-path "$build/build" --show-bin-path)

python3 - "$vectors" "$build" <<'PY'
import base64, json, os, sys
vectors, build = sys.argv[1], sys.argv[2]
document = json.load(open(vectors))
for name in ("decrypt", "envelope", "keystore", "media", "http", "webpush", "relay", "fetch"):
    os.makedirs(f"{build}/corpus-{name}", exist_ok=True)
for index, vector in enumerate(document["positive"] + document["negative"]):
    text = vector["envelope"]
    outer = {"aps": {"alert": {"title": "New notification", "body": "Open the app"}, "mutable-content": 1}, "enc": text}
    open(f"{build}/corpus-decrypt/vector-{index}", "w").write(json.dumps(outer, separators=(",", ":")))
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)) if text else b""
    open(f"{build}/corpus-envelope/vector-{index}", "wb").write(raw)
# Key files: each negative vector's recipient and trusted senders as a store, half of them with a policy.
suites = {"OKP": "X25519-SHA256-ChaCha20Poly1305", "EC": "P256-SHA256-AES256GCM", "oct": "XChaCha20Poly1305"}
for index, vector in enumerate(document["negative"]):
    def entry(jwk, role, current):
        return {"kid": jwk.get("kid", "k"), "suite": suites.get(jwk.get("kty"), "?"), "role": role,
                "current": current, "created": "2026-01-01T00:00:00Z", "jwk": jwk}
    keys = [entry(vector["recipient"], "device", True)]
    keys += [entry(sender, "sender", False) for sender in vector.get("trustedSenders", [])]
    root = {"format": "pushseal-key-store", "version": 1, "keys": keys}
    if index % 2:
        root["policy"] = {"require-sealed": True, "neutral-title": "New", "neutral-body": "Open the app"}
    open(f"{build}/corpus-keystore/store-{index}", "w").write(json.dumps(root, separators=(",", ":")))
# Media objects: each positive vector of media-v1.json, its index first (the target's descriptor choice).
media = json.load(open("Tests/PushSealCoreTests/Vectors/media-v1.json"))
for index, vector in enumerate(media["positive"]):
    text = vector["object"]
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    open(f"{build}/corpus-media/object-{index}", "wb").write(bytes([index]) + raw)
# Server responses: the framings and redirects the media fetcher meets.
responses = [
    b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: video/mp4\r\n\r\nhello",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: 1\r\n\r\n",
    b"HTTP/1.0 200 OK\r\nServer: s\r\n\r\nuntil close",
    b"HTTP/1.1 302 Found\r\nLocation: ../c/./d.psm?x#f\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 301 Moved\r\nLocation: https://[::1]:8443/x\r\n\r\n",
    b"HTTP/1.1 307 Temporary\r\nLocation: //other.example/y\r\n\r\n",
    # Whole inputs read as URLs under the media URL rule, numeric hosts among them.
    b"https://cdn.example/o/1.psm",
    b"https://127.0.0.1:8443/x",
    b"https://0177.0.0.1/x",
    b"https://0x7f.1/x",
    b"https://user@cdn/x",
]
for index, response in enumerate(responses):
    open(f"{build}/corpus-http/response-{index}", "wb").write(response)
# Web Push: a message header (mode 0), records with and without their delimiter (mode 1),
# content to seal and open (mode 2), content to map to a notification (mode 3).
point = bytes([4]) + bytes(range(1, 65))
seeds = [
    bytes([0]) + bytes(16) + (4096).to_bytes(4, "big") + bytes([65]) + point + bytes(40),
    bytes([1]) + b"hello" + bytes([2, 0, 0]),
    bytes([1]) + b"hello" + bytes([1]),
    bytes([1]) + b"he\x02llo" + bytes([0, 5]),
    bytes([2]) + b'{"title":"Dentist"}',
    bytes([3]) + b'{"web_push":8030,"app_badge":"7","notification":{"title":"T","navigate":"https://a.example/",'
    + b'"tag":"t","silent":false,"app_badge":2,"data":{"event_id":"e"}}}',
    bytes([3]) + b'{"title":"Ada","body":"Hi","notification_id":4207}',
]
for index, seed in enumerate(seeds):
    open(f"{build}/corpus-webpush/seed-{index}", "wb").write(seed)
# The relay: header lines, an empty line, an aes128gcm body (the generator as the sender's key).
generator = bytes.fromhex(
    "046B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296"
    "4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5")
message = bytes(16) + (4096).to_bytes(4, "big") + bytes([65]) + generator + bytes(40)
relay = [
    b"content-encoding: aes128gcm\nttl: 60\nurgency: high\ntopic: abc\nauthorization: vapid t=a.b.c, k=x\n\n" + message,
    b"content-encoding: aesgcm\nttl: 60\n\n" + message,
    b"content-encoding: aes128gcm\nttl: 60\n\n" + bytes(40),
]
for index, seed in enumerate(relay):
    open(f"{build}/corpus-relay/seed-{index}", "wb").write(seed)
# Fetched content: each reference of fetch-v1.json (mode 0), and each answered body as an
# envelope (mode 1) and as a Web Push message (mode 2).
fetched = json.load(open("Tests/PushSealCoreTests/Vectors/fetch-v1.json"))
for index, vector in enumerate(fetched["references"]):
    open(f"{build}/corpus-fetch/reference-{index}", "wb").write(bytes([0]) + vector["reference_text"].encode())
for index, vector in enumerate(fetched["cases"]):
    if vector["answer"] and vector["answer"]["body"]:
        text = vector["answer"]["body"]
        body = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        for mode in (1, 2):
            open(f"{build}/corpus-fetch/body-{index}-{mode}", "wb").write(bytes([mode]) + body)
PY

# Leak detection is off: the key ring lives in a global for the whole run, and Swift keeps
# multi-payload enum tags in pointer spare bits, so LeakSanitizer cannot follow those pointers
# and reports the ring's keys as leaked. Growth per input is still caught by -rss_limit_mb.
mkdir -p "$build/crashes"
status=0
for target in $targets; do
    case $target in
        keystore) binary=$bin/FuzzKeyStore ;;
        media) binary=$bin/FuzzMedia ;;
        http) binary=$bin/FuzzHTTP ;;
        webpush) binary=$bin/FuzzWebPush ;;
        relay) binary=$bin/FuzzRelay ;;
        fetch) binary=$bin/FuzzFetch ;;
        *) binary=$bin/Fuzz$(tr '[:lower:]' '[:upper:]' <<<"${target:0:1}")${target:1} ;;
    esac
    dictionary=()
    [[ -f Fuzz/$target.dict ]] && dictionary=(-dict="Fuzz/$target.dict")
    kept=Fuzz/corpus/$target
    mkdir -p "$kept"
    max_len=$(case $target in media) echo 140000 ;; fetch) echo 20000 ;; *) echo 8192 ;; esac)
    if [[ -n $runs ]]; then
        echo "fuzz: $target for $runs executions"
        length=(-runs="$runs")
    else
        echo "fuzz: $target for ${seconds}s"
        length=(-max_total_time="$seconds")
    fi
    # New inputs go to the first directory (the build's); the kept corpus is read as seeds.
    ASAN_OPTIONS=detect_leaks=0 PUSHSEAL_FUZZ_VECTORS=$vectors "$binary" "$build/corpus-$target" "$kept" \
        "${dictionary[@]}" "${length[@]}" -max_len="$max_len" -timeout="$timeout" -rss_limit_mb=2048 -detect_leaks=0 \
        -artifact_prefix="$build/crashes/$target-" -print_final_stats=1 2>"$build/$target.log" || status=$?
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|ERROR|SUMMARY" "$build/$target.log" || true
    # Without coverage feedback a run proves little: refuse to call it a pass.
    if grep -q "Is the code instrumented for coverage" "$build/$target.log"; then
        echo "fuzz: $target is not instrumented for coverage; see $build/$target.log"
        exit 1
    fi
    grep -E "DONE" "$build/$target.log" | tail -n 1 || true
    [[ $status -eq 0 ]] || { echo "fuzz: $target found a crash: see $build/$target.log and $build/crashes"; exit "$status"; }
    if [[ $keep_corpus == 1 ]]; then
        before=$(find "$kept" -type f | wc -l)
        ASAN_OPTIONS=detect_leaks=0 PUSHSEAL_FUZZ_VECTORS=$vectors "$binary" -merge=1 -max_len="$max_len" \
            -timeout="$timeout" -rss_limit_mb=2048 -detect_leaks=0 "$kept" "$build/corpus-$target" 2>"$build/$target-merge.log"
        echo "fuzz: $target's kept corpus: $before inputs, now $(find "$kept" -type f | wc -l) ($(du -sk "$kept" | cut -f1) KB)"
    fi
done
echo "fuzz: no crash in ${runs:-${seconds}s} ${runs:+executions }per target"
