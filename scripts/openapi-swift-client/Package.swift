// swift-tools-version:6.2
// The Swift client that swift-openapi-generator makes from Reshape's OpenAPI document, and a
// check that drives it against a running server (scripts/check-openapi.sh, docs/openapi.md).
// A package of its own: the generator, its runtime and URLSession's transport use Foundation,
// which the server does not. The document is not committed: check-openapi.sh copies the one
// `reshape openapi` prints into the target before it builds, and the generator's build plugin
// makes the client from it.
import PackageDescription

let package = Package(
    name: "openapi-swift-client",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
    ],
    targets: [
        .executableTarget(
            name: "reshape-client-check",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        )
    ]
)
