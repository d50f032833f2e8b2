// swift-tools-version:6.0
import PackageDescription

// PushSeal: end-to-end encrypted APNs payloads.
//
// The architecture, bottom up:
//   CSodium, COpenSSL, CLibSSL,  system C libraries, found through pkg-config (Linux only: on
//   CSQLite, CNGHTTP2            Apple platforms SQLite is the system's and there is no C to ship)
//   PushSealURL                  the one media URL rule: an https URL parsed strictly, for the sealer
//                                and the fetcher alike
//   PushSealPrimitives           the only crypto code: secrets, AEADs, X25519, P-256, HKDF, on one of
//                                two backends chosen at compile time (see "Backends" below)
//   PushSealCore                 envelope v1, HPKE (RFC 9180), suites, JWKs, JSON, base64url
//   PushSealPOSIX                whole reads and writes on file descriptors, and wiping: for the modules
//                                below that do I/O, and for the CryptoKit backend
//   PushSealEncryptor            server side: validate, seal, size-check an APNs payload
//   PushSealHTTPS                HTTPS on Linux over libssl: the verified TLS connection (media downloads
//                                and APNs share it) and the media download, a streamed HTTP/1.1 GET
//   PushSealDecryptor            device side: key store, opening and rewriting, event ledger, extension session
//   PushSealDelivery             `pushseal send`: HTTP/2 to APNs (libnghttp2 over PushSealHTTPS's TLS),
//                                token auth, retries
//   PushSealCLI                  the `pushseal` commands, as a library so that tests can drive them
//   pushseal                     the executable: a five-line entry point
//   CMicroHTTPD, CLibPQ          libmicrohttpd, the HTTP server library under the gateway, and libpq,
//                                its PostgreSQL client
//   PushSealGatewayModel         the gateway's values, with no I/O: devices, the outbox's deliveries and
//                                outcomes, records, access tokens, webhook events, the retry schedule
//   PushSealGatewayStorage       the gateway's store protocol, and its SQLite and PostgreSQL stores
//   PushSealGateway              `pushseal-gateway`: configuration, the HTTP API, sealing per device,
//                                the delivery and webhook workers, the relay, operations, commands
//   pushseal-gateway             its executable
//   PushSealTestSupport          what the tests and the bench share (runner, processes, PostgreSQL)
//   PushSealBenchStatistics      the bench's statistics, tested by make test; the bench itself
//                                (PushSealBench) is a target only with PUSHSEAL_BENCH set

// Backends. PushSealPrimitives is built on libsodium and OpenSSL wherever CryptoKit cannot be
// imported (Linux), and on CryptoKit on Apple platforms, so that an iOS extension links nothing
// else. PUSHSEAL_CRYPTOKIT=1 builds the CryptoKit backend on Linux too, against CryptoKitStandIn,
// a module of this package that offers the subset of CryptoKit's API the backend calls, on
// libsodium and OpenSSL (`make test-cryptokit`, `make release-cryptokit`). No Swift package is
// fetched: every dependency is a system library from Debian's packages.
let cryptoKitOnLinux = Context.environment["PUSHSEAL_CRYPTOKIT"] != nil

// The bench (`make bench`, `make bench-send`, `make bench-gateway`) is a target only when
// PUSHSEAL_BENCH is set, as its Make targets set it: `swift build` and `make test` never build it.
// Its statistics are a library of their own, which they do build, and test.
let withBench = Context.environment["PUSHSEAL_BENCH"] != nil

extension TargetDependencyCondition {
    /// Where the C libraries are linked.
    static let linuxOnly = TargetDependencyCondition.when(platforms: [.linux])
}

extension TargetDependencyCondition {
    /// Where CryptoKit is part of the system.
    static let applePlatforms = TargetDependencyCondition.when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])
}

extension BuildSettingCondition {
    /// Where CryptoKit is part of the system.
    static let applePlatforms = BuildSettingCondition.when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])
}

let package = Package(
    name: "PushSeal",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "PushSealEncryptor", targets: ["PushSealEncryptor"]),
        .library(name: "PushSealDecryptor", targets: ["PushSealDecryptor"]),
        .library(name: "PushSealCore", targets: ["PushSealCore"]),
        .library(name: "PushSealDelivery", targets: ["PushSealDelivery"]),
        .executable(name: "pushseal", targets: ["pushseal"]),
        .executable(name: "pushseal-gateway", targets: ["pushseal-gateway"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // libnghttp2: HTTP/2 framing, HPACK and flow control for APNs; it does no I/O of its own.
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["libnghttp2"])]
        ),
        // libssl, for the TLS client of media downloads (PushSealHTTPS).
        .systemLibrary(
            name: "CLibSSL",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(
            name: "PushSealPrimitives",
            dependencies: cryptoKitOnLinux
                ? ["CryptoKitStandIn", "PushSealPOSIX"]
                : [
                    .target(name: "CSodium", condition: .linuxOnly), .target(name: "COpenSSL", condition: .linuxOnly),
                    .target(name: "PushSealPOSIX", condition: .applePlatforms),
                ],
            swiftSettings: [.define("PUSHSEAL_CRYPTOKIT", cryptoKitOnLinux ? nil : .applePlatforms)]),
        .target(name: "PushSealURL"),
        .target(name: "PushSealCore", dependencies: ["PushSealPrimitives", "PushSealURL"]),
        .target(name: "PushSealEncryptor", dependencies: ["PushSealCore", "PushSealPOSIX"]),
        .target(name: "PushSealPOSIX"),
        .target(
            name: "PushSealHTTPS", dependencies: ["PushSealURL", .target(name: "CLibSSL", condition: .linuxOnly)]),
        .target(
            name: "PushSealDecryptor",
            dependencies: [
                "PushSealCore", "PushSealPOSIX", "PushSealURL", .target(name: "CSQLite", condition: .linuxOnly),
                .target(name: "PushSealHTTPS", condition: .linuxOnly),
            ]),
        .target(
            name: "PushSealDelivery",
            dependencies: [
                "PushSealEncryptor", "PushSealCore", "PushSealPrimitives", "PushSealURL",
                .target(name: "CNGHTTP2", condition: .linuxOnly), .target(name: "PushSealHTTPS", condition: .linuxOnly),
            ]),
        .target(
            name: "PushSealCLI",
            dependencies: [
                "PushSealEncryptor", "PushSealDecryptor", "PushSealDelivery", "PushSealPOSIX", "PushSealPrimitives",
            ]),
        .executableTarget(name: "pushseal", dependencies: ["PushSealCLI"]),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(
            name: "PushSealGatewayModel", dependencies: ["PushSealEncryptor", "PushSealCore", "PushSealPrimitives"]),
        .target(
            name: "PushSealGatewayStorage",
            dependencies: [
                "PushSealGatewayModel", "PushSealCore", "PushSealEncryptor",
                .target(name: "CSQLite", condition: .linuxOnly), .target(name: "CLibPQ", condition: .linuxOnly),
            ]),
        .target(
            name: "PushSealGateway",
            dependencies: [
                "PushSealGatewayModel", "PushSealGatewayStorage",
                "PushSealEncryptor", "PushSealDelivery", "PushSealCore", "PushSealPrimitives", "PushSealPOSIX",
                "PushSealURL", .target(name: "PushSealHTTPS", condition: .linuxOnly),
                .target(name: "CMicroHTTPD", condition: .linuxOnly), .target(name: "CSQLite", condition: .linuxOnly),
                .target(name: "CLibPQ", condition: .linuxOnly),
            ]),
        .executableTarget(name: "pushseal-gateway", dependencies: ["PushSealGateway"]),
        .target(name: "PushSealTestSupport", dependencies: ["PushSealCore"]),
        .target(name: "PushSealBenchStatistics"),
        .testTarget(
            name: "PushSealPrimitivesTests", dependencies: ["PushSealPrimitives", "PushSealTestSupport"],
            swiftSettings: [.define("PUSHSEAL_CRYPTOKIT", cryptoKitOnLinux ? nil : .applePlatforms)]),
        .testTarget(name: "PushSealPOSIXTests", dependencies: ["PushSealPOSIX"]),
        .testTarget(name: "PushSealHTTPSTests", dependencies: ["PushSealHTTPS", "PushSealTestSupport"]),
        .testTarget(name: "PushSealURLTests", dependencies: ["PushSealURL"]),
        .testTarget(
            name: "PushSealCoreTests",
            dependencies: ["PushSealCore", "PushSealPrimitives", "PushSealTestSupport"],
            resources: [.copy("Vectors")]
        ),
        .testTarget(
            name: "PushSealEncryptorTests", dependencies: ["PushSealEncryptor", "PushSealCore", "PushSealTestSupport"]
        ),
        .testTarget(
            name: "PushSealDecryptorTests",
            dependencies: [
                "PushSealDecryptor", "PushSealEncryptor", "PushSealCore", "PushSealPrimitives", "PushSealTestSupport",
            ],
            exclude: ["FuzzRegressions"]
        ),
        .testTarget(
            name: "PushSealDeliveryTests",
            dependencies: ["PushSealDelivery", "PushSealCore", "PushSealPrimitives", "PushSealTestSupport"]),
        .testTarget(
            name: "PushSealCLITests",
            dependencies: [
                "PushSealCLI", "PushSealCore", "PushSealEncryptor", "PushSealDecryptor", "PushSealDelivery",
                "PushSealTestSupport", "PushSealPrimitives",
            ]
        ),
        .testTarget(
            name: "PushSealGatewayTests",
            dependencies: [
                "PushSealGateway", "PushSealGatewayModel", "PushSealGatewayStorage", "PushSealCore",
                "PushSealEncryptor", "PushSealDecryptor",
                "PushSealDelivery", "PushSealTestSupport",
            ]),
        .testTarget(name: "PushSealBenchStatisticsTests", dependencies: ["PushSealBenchStatistics"]),
    ]
)

// The bench (PUSHSEAL_BENCH only): speed and memory as ratios measured in one run.
if withBench {
    package.targets.append(
        .executableTarget(
            name: "PushSealBench",
            dependencies: [
                "PushSealEncryptor", "PushSealCore", "PushSealPrimitives", "PushSealTestSupport",
                "PushSealBenchStatistics",
                // The bench's own mock APNs (FastMockAPNs), an HTTP/2 server never linked into a product.
                .target(name: "CNGHTTP2", condition: .linuxOnly), .target(name: "CLibSSL", condition: .linuxOnly),
                // The stores' floors (StoreFloor): the gateway's rows inserted with nothing around them.
                .target(name: "CSQLite", condition: .linuxOnly), .target(name: "CLibPQ", condition: .linuxOnly),
            ]))
}

// The CryptoKit stand-in (Linux, PUSHSEAL_CRYPTOKIT=1 only): CryptoKit's API on libsodium and
// OpenSSL, so that the CryptoKit backend's source is compiled and tested here.
if cryptoKitOnLinux {
    package.targets += [
        .target(name: "CryptoKitStandIn", dependencies: ["CSodium", "COpenSSL"]),
        .testTarget(name: "CryptoKitStandInTests", dependencies: ["CryptoKitStandIn", "PushSealTestSupport"]),
    ]
}

// libFuzzer targets (`make fuzz`): only with PUSHSEAL_FUZZ set, since they have no `main` of their
// own and link only with -sanitize=fuzzer.

if Context.environment["PUSHSEAL_FUZZ"] != nil {
    package.targets += [
        .executableTarget(
            name: "FuzzDecrypt", dependencies: ["PushSealDecryptor", "PushSealCore"], path: "Fuzz/FuzzDecrypt",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzEnvelope", dependencies: ["PushSealCore"], path: "Fuzz/FuzzEnvelope",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzMedia", dependencies: ["PushSealCore", "PushSealPrimitives"], path: "Fuzz/FuzzMedia",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzHTTP", dependencies: ["PushSealHTTPS", "PushSealURL"], path: "Fuzz/FuzzHTTP",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzWebPush", dependencies: ["PushSealCore"], path: "Fuzz/FuzzWebPush",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzRelay", dependencies: ["PushSealGateway", "PushSealCore"], path: "Fuzz/FuzzRelay",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzFetch", dependencies: ["PushSealDecryptor", "PushSealEncryptor", "PushSealCore"],
            path: "Fuzz/FuzzFetch", swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzKeyStore", dependencies: ["PushSealDecryptor", "PushSealCore"], path: "Fuzz/FuzzKeyStore",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ]
}

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
