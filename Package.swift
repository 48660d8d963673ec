// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "alertd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AlertCore", targets: ["AlertCore"]),
        .executable(name: "alertd", targets: ["alertd"]),
        .executable(name: "alertctl", targets: ["alertctl"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "AlertCore",
            dependencies: ["CCurl", "CMicroHTTPD", "CSQLite", "CCrypto"]
        ),
        .executableTarget(name: "alertd", dependencies: ["AlertCore"]),
        .executableTarget(name: "alertctl", dependencies: ["AlertCore"]),
        .testTarget(
            name: "AlertCoreTests",
            dependencies: ["AlertCore", "CMicroHTTPD"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
