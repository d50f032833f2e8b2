#!/usr/bin/env bash
# Type-checks the Apple-only media transport, Sources/PushSealDecryptor/URLSessionTransfer.swift,
# on Linux: with the Decryptor module's real sources, in Swift 6 mode, against this toolchain's
# corelibs Foundation (whose URLSession API is Apple's). It cannot run here (corelibs' URLSession
# cannot trust a test server's certificate), but a type check keeps it from rotting unseen.
# Needs the debug build (`swift build`), whose module files it reads.
set -euo pipefail
cd "$(dirname "$0")/.."
description=.build/debug/description.json
[[ -f $description ]] || { echo "typecheck-urlsession: run swift build first"; exit 1; }
package=$(tr -d "\n" <"$description" | grep -o '"-package-name",[[:space:]]*"[^"]*"' | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/')
maps=()
for module in CSQLite CLibSSL COpenSSL CSodium; do
    maps+=(-Xcc "-fmodule-map-file=Sources/$module/module.modulemap")
done
swiftc -typecheck -swift-version 6 -warnings-as-errors -module-name PushSealDecryptor -package-name "$package" \
    -enable-upcoming-feature MemberImportVisibility -enable-upcoming-feature ExistentialAny \
    -enable-upcoming-feature InternalImportsByDefault -D PUSHSEAL_TYPECHECK_URLSESSION \
    -I .build/debug/Modules "${maps[@]}" Sources/PushSealDecryptor/*.swift
echo "typecheck-urlsession: URLSessionTransfer type-checks against corelibs Foundation"
