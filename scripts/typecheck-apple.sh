#!/usr/bin/env bash
# Type-checks every Apple-only line on Linux, where none of it can run:
#   - Sources/PushSealDecryptor: the URLSession media transport, the adapter to
#     UNMutableNotificationContent and PushSealNotificationService, with the module's real
#     sources, in Swift 6 mode, against this toolchain's corelibs Foundation (whose URLSession API
#     is Apple's) and stand-ins of UserNotifications and of the SDK's SQLite3 module
#     (Tests/AppleStandIns: Apple's names and signatures, each naming its documentation symbol
#     and availability), once as for iOS and once as for macOS;
#   - the example app's two targets, examples/ios (the extension, and the app's delegate and
#     registration), against that module and a UIKit stand-in; and the app's reading of its
#     provisioning profile is run on sample profiles (Tests/ExampleChecks).
# A type check keeps this code from rotting unseen; what it cannot prove (that Apple's SDK
# declares the same signatures at the deployment target, and how the code behaves on a phone) the
# docs/ios.md says. Needs the debug build (`swift build`), whose module files it reads.
set -euo pipefail
cd "$(dirname "$0")/.."
description=.build/debug/description.json
[[ -f $description ]] || { echo "typecheck-apple: run swift build first"; exit 1; }
package=$(tr -d "\n" <"$description" | grep -o '"-package-name",[[:space:]]*"[^"]*"' | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/')
out=.build/apple-typecheck
rm -rf "$out"
mkdir -p "$out"
maps=()
for module in CSQLite CLibSSL COpenSSL CSodium; do
    maps+=(-Xcc "-fmodule-map-file=Sources/$module/module.modulemap")
done
# The SDK's SQLite3 module name, so that the decryptor's Apple branch (`canImport(SQLite3)`) is
# the one compiled.
apple_maps=(-Xcc "-fmodule-map-file=Tests/AppleStandIns/SQLite3/module.modulemap")
features=(-enable-upcoming-feature MemberImportVisibility -enable-upcoming-feature ExistentialAny
    -enable-upcoming-feature InternalImportsByDefault)

# Apple's API, as the stand-ins declare it (Swift 5 mode: Objective-C APIs are imported so).
swiftc -emit-module -swift-version 5 -module-name UserNotifications -emit-module-path "$out/UserNotifications.swiftmodule" \
    Tests/AppleStandIns/UserNotifications.swift
swiftc -emit-module -swift-version 5 -module-name UIKit -emit-module-path "$out/UIKit.swiftmodule" \
    Tests/AppleStandIns/UIKit.swift

# The decryptor with its Apple-only files, as an iOS build compiles it.
swiftc -emit-module -swift-version 6 -warnings-as-errors -module-name PushSealDecryptor -package-name "$package" \
    "${features[@]}" -D PUSHSEAL_TYPECHECK_APPLE -I "$out" -I .build/debug/Modules "${maps[@]}" "${apple_maps[@]}" \
    -emit-module-path "$out/PushSealDecryptor.swiftmodule" Sources/PushSealDecryptor/*.swift

# Again as a macOS build compiles it (Package.swift declares macOS 14, where iOS engineers build
# and test): the stand-ins then make what Apple's SDK marks API_UNAVAILABLE(macos) unavailable,
# and the decryptor's `#if os(macOS)` branches are taken (PUSHSEAL_TYPECHECK_MACOS).
mac="$out/macos"
mkdir -p "$mac"
swiftc -emit-module -swift-version 5 -module-name UserNotifications -D PUSHSEAL_STANDIN_MACOS \
    -emit-module-path "$mac/UserNotifications.swiftmodule" Tests/AppleStandIns/UserNotifications.swift
swiftc -typecheck -swift-version 6 -warnings-as-errors -module-name PushSealDecryptor -package-name "$package" \
    "${features[@]}" -D PUSHSEAL_TYPECHECK_APPLE -D PUSHSEAL_TYPECHECK_MACOS -I "$mac" -I .build/debug/Modules \
    "${maps[@]}" "${apple_maps[@]}" Sources/PushSealDecryptor/*.swift

# The example's two targets, each as Xcode compiles it: the extension, and the app's registration.
swiftc -typecheck -swift-version 6 -warnings-as-errors -module-name NotificationServiceExtension \
    -I "$out" -I .build/debug/Modules "${maps[@]}" "${apple_maps[@]}" examples/ios/NotificationService/*.swift
swiftc -typecheck -swift-version 6 -warnings-as-errors -module-name ExampleApp \
    -I "$out" -I .build/debug/Modules "${maps[@]}" "${apple_maps[@]}" examples/ios/App/*.swift
# The app's reading of its provisioning profile is Foundation alone: run it on sample profiles.
swiftc -swift-version 6 -warnings-as-errors -o "$out/aps-environment-check" \
    examples/ios/App/APSEnvironment.swift Tests/ExampleChecks/APSEnvironment/main.swift
"$out/aps-environment-check"
echo "typecheck-apple: the Apple-only sources (as for iOS and for macOS) and examples/ios type-check (corelibs Foundation, UIKit, UserNotifications and SQLite3 stand-ins)"
