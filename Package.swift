// swift-tools-version:6.0
import PackageDescription

// The target graph is the architecture: each target depends only on the ones
// below it, and only the edge targets (one per C library, plus POSIX) import C.
//
//   alertd ─ AlertdDaemon ─┬─ AlertdAPI ─ AlertdDelivery ─┬─ AlertdStore ─ AlertModel
//                          ├─ AlertdSQLiteStore ─ AlertdSQLite (C)   ├─ AlertdCurl (C)
//                          ├─ AlertdPostgresStore ─ AlertdPostgres (C: libpq)
//                          └─ AlertdHTTPServer (C)                  ├─ AlertdCrypto (C)
//                                                                   └─ AlertdServices ─ AlertdLogging
//   alertctl ─ AlertdClient ─ AlertdCommandLine, AlertdHTTP, AlertdCurl (C)
//
// Test hooks exist in debug builds only, which the tests run against: the
// fault hook (SIGUSR2 stalls the dispatcher) and the test presenter (the
// presenter mock). Release builds do not have the code at all.
let testHooks: [SwiftSetting] = [.define("ALERTD_TEST_HOOKS", .when(configuration: .debug))]

// Release binaries leave their DWARF out (7 MB of each): crash backtraces
// still name functions from the symbol table, and the binaries stay small.
// They are linked by the toolchain's lld with packed relative relocations
// (DT_RELR, glibc 2.36+): the loader reads ~5 KB instead of 1 MB of
// relocation entries at every start. Nothing is exported to the dynamic
// symbol table (the static stdlib's link arguments ask for -export-dynamic):
// no library looks symbols up in the executable, and 8,500 exported Swift
// symbols made every symbol lookup at load time search them first.
// The functions that start-up and an idle daemon run are laid out first and
// together (linking/<product>.order, written by scripts/order-symbols.py):
// the kernel maps code in 64 KB windows around each page that runs, and
// scattered, that code kept 8 MB of alertd resident. The functions the list
// cannot name or move go before them (linking/front.lds).
func releaseLinking(_ product: String) -> [LinkerSetting] {
    [
        .unsafeFlags(
            ["-use-ld=lld", "-Xlinker", "--strip-debug", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
             "-Xlinker", "--no-export-dynamic",
             "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/linking/\(product).order",
             "-Xlinker", "--no-warn-symbol-ordering", "-Xlinker", "-T", "-Xlinker", "\(Context.packageDirectory)/linking/front.lds"],
            .when(configuration: .release)),
    ]
}

let package = Package(
    name: "alertd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "alertd", targets: ["alertd"]),
        .executable(name: "alertctl", targets: ["alertctl"]),
    ],
    targets: [
        // C libraries, each seen by exactly one edge target.
        // libcurl is loaded on first use (dlopen, see shim.h), not linked: no pkg-config libs.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libcrypto too is loaded on first use (see shim.h).
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        // libpq too, by the PostgreSQL store only (see shim.h).
        .systemLibrary(name: "CPostgreSQL", providers: [.apt(["libpq-dev"])]),

        // The alert as a value: imports no other target and no C.
        .target(name: "AlertModel"),

        // Edges: typed Swift over C.
        .target(name: "AlertdPOSIX", dependencies: ["AlertModel"]),
        .target(name: "AlertdSQLite", dependencies: ["CSQLite"]),
        .target(name: "AlertdPostgres", dependencies: ["CPostgreSQL", "AlertdPOSIX", "AlertModel"]),
        .target(name: "AlertdCrypto", dependencies: ["CCrypto", "AlertdPOSIX"]),
        .target(name: "AlertdHTTP", dependencies: ["AlertModel"]),
        .target(name: "AlertdCurl", dependencies: ["CCurl", "AlertdHTTP", "AlertdPOSIX"]),
        .target(name: "AlertdHTTPServer", dependencies: ["CMicroHTTPD", "AlertdHTTP", "AlertdPOSIX"]),

        .target(name: "AlertdLogging", dependencies: ["AlertModel", "AlertdPOSIX"]),
        .target(name: "AlertdCommandLine", dependencies: ["AlertModel", "AlertdPOSIX"]),

        // Service and ServiceGroup: ordered start, graceful stop in reverse, then cancellation.
        .target(name: "AlertdServices", dependencies: ["AlertModel", "AlertdLogging"]),

        // The store: protocols and shared rules, then one target per backend.
        .target(name: "AlertdStore", dependencies: ["AlertModel"]),
        .target(name: "AlertdSQLiteStore", dependencies: ["AlertdStore", "AlertdSQLite", "AlertdPOSIX"]),
        .target(name: "AlertdPostgresStore", dependencies: ["AlertdStore", "AlertdPostgres", "AlertdPOSIX"]),

        // Presenters, routing, retries, the dispatcher and maintenance.
        .target(
            name: "AlertdDelivery",
            dependencies: ["AlertModel", "AlertdStore", "AlertdHTTP", "AlertdCurl", "AlertdCrypto", "AlertdPOSIX", "AlertdLogging",
                           "AlertdServices"],
            swiftSettings: testHooks),

        // Routes and handlers; knows nothing of libmicrohttpd.
        .target(name: "AlertdAPI", dependencies: ["AlertdDelivery", "AlertdStore", "AlertdHTTP", "AlertdLogging", "AlertdCrypto", "AlertdServices"]),

        // The composition root: configuration, services, lifecycle.
        .target(
            name: "AlertdDaemon",
            dependencies: ["AlertdAPI", "AlertdDelivery", "AlertdStore", "AlertdSQLiteStore", "AlertdPostgresStore", "AlertdHTTPServer",
                           "AlertdCommandLine", "AlertdLogging", "AlertdPOSIX", "AlertdCrypto", "AlertdServices"],
            swiftSettings: testHooks),

        // alertctl's commands and the client; no server, no SQLite.
        .target(
            name: "AlertdClient",
            dependencies: ["AlertModel", "AlertdHTTP", "AlertdCurl", "AlertdCommandLine", "AlertdPOSIX", "AlertdDelivery", "AlertdLogging"]),

        .executableTarget(name: "alertd", dependencies: ["AlertdDaemon", "AlertdCommandLine", "AlertdPOSIX"], linkerSettings: releaseLinking("alertd")),
        .executableTarget(name: "alertctl", dependencies: ["AlertdClient"], linkerSettings: releaseLinking("alertctl")),
        .testTarget(
            name: "AlertCoreTests",
            dependencies: ["AlertdDaemon", "AlertdClient", "AlertdServices", "CMicroHTTPD"]),
    ],
    swiftLanguageModes: [.v6]
)

// Every function in a section of its own in release builds, so the link can
// order them (see releaseLinking). Without LLVM's function merging: it makes
// local functions of one name in many objects (`objectdestroyTm`), and the
// order list cannot name one of them without moving all (some lie in the
// static stdlib's shared sections), so start-up code they held stayed
// scattered. The cost is 95 KB of binary.
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .unsafeFlags(["-Xfrontend", "-function-sections", "-Xfrontend", "-disable-llvm-merge-functions-pass"],
                     .when(configuration: .release)),
    ]
}
