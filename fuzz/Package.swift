// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for Reshape, kept out of the main package so that a plain `swift build`
// never links them without the fuzzer runtime. Each is a driver of a few lines: the inputs'
// properties are the main package's ReshapeFuzzTargets, which reaches its package-visible API. Build and run them with scripts/fuzz.sh, which
// passes `-sanitize=fuzzer,address`; docs/hardening.md explains the setup.
let reshape = "Reshape"

let package = Package(
    name: "ReshapeFuzz",
    dependencies: [.package(name: reshape, path: "..")],
    targets: [
        .systemLibrary(name: "CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"]),
        .executableTarget(name: "fuzz-json", dependencies: ["FuzzSupport", .product(name: "ReshapeFuzzTargets", package: reshape)]),
        .executableTarget(name: "fuzz-rules", dependencies: ["FuzzSupport", .product(name: "ReshapeFuzzTargets", package: reshape)]),
        .executableTarget(name: "fuzz-schema", dependencies: ["FuzzSupport", .product(name: "ReshapeFuzzTargets", package: reshape)]),
        .executableTarget(name: "fuzz-http", dependencies: ["FuzzSupport", .product(name: "ReshapeFuzzTargets", package: reshape)]),
        .executableTarget(name: "fuzz-live", dependencies: ["FuzzSupport", .product(name: "ReshapeFuzzTargets", package: reshape)]),
        .executableTarget(name: "fuzz-url", dependencies: ["FuzzSupport", .product(name: "ReshapeFuzzTargets", package: reshape)]),
        .executableTarget(name: "fuzz-auth", dependencies: ["FuzzSupport", .product(name: "ReshapeFuzzTargets", package: reshape)]),
    ],
    swiftLanguageModes: [.v6]
)
