// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for Reshape, kept out of the main package so that a plain `swift build`
// never links them without the fuzzer runtime. Build and run them with scripts/fuzz.sh, which
// passes `-sanitize=fuzzer,address`; docs/hardening.md explains the setup.
let reshape = "Reshape"

let package = Package(
    name: "ReshapeFuzz",
    dependencies: [.package(name: reshape, path: "..")],
    targets: [
        .systemLibrary(name: "CLibFuzzer"),
        .systemLibrary(name: "CCurlURL", pkgConfig: "libcurl"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"]),
        .executableTarget(name: "fuzz-json", dependencies: [
            "FuzzSupport", .product(name: "ReshapeJSON", package: reshape),
        ]),
        .executableTarget(name: "fuzz-rules", dependencies: [
            "FuzzSupport", .product(name: "ReshapeRules", package: reshape), .product(name: "ReshapeJSON", package: reshape),
        ]),
        .executableTarget(name: "fuzz-schema", dependencies: [
            "FuzzSupport", .product(name: "ReshapeSchema", package: reshape), .product(name: "ReshapeJSON", package: reshape),
        ]),
        .executableTarget(name: "fuzz-http", dependencies: [
            "FuzzSupport", .product(name: "ReshapeServer", package: reshape), .product(name: "ReshapeProxy", package: reshape),
            .product(name: "ReshapeRules", package: reshape),
        ]),
        .executableTarget(name: "fuzz-live", dependencies: [
            "FuzzSupport", .product(name: "ReshapeLive", package: reshape), .product(name: "ReshapeJSON", package: reshape),
        ]),
        .executableTarget(name: "fuzz-url", dependencies: [
            "FuzzSupport", "CCurlURL", .product(name: "ReshapeProxy", package: reshape), .product(name: "ReshapeRules", package: reshape),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
