// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way:
// reshape -> ReshapeServer -> ReshapeProxy -> ReshapeRules -> ReshapeSchema -> ReshapeJSON.
// C is reached only through the C* targets below: the I/O libraries (libuv, libcurl,
// http_parser, hiredis) by ReshapeServer alone, and each of the others by one small module of
// its own: PCRE2 by ReshapeRegex, libyaml by ReshapeYAML, libcrypto by ReshapeDigest, the
// compression libraries by ReshapeCompression. CJSONIndex, the parser's first stage, is the
// package's own C. The demo upstream calls the C library (Glibc), and libcrypto (CCrypto) only
// to sign the demo's ID tokens.
// The request path's modules drop the run-time exclusivity checks in release builds: every
// access to a class's stored `var` outside the compiler's static proof pays a call into the
// runtime's access set, several per request (docs/benchmarks.md has the count). Debug builds,
// which the tests and the sanitizers run, keep them.
let releaseWithoutExclusivityChecks: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
]

let package = Package(
    name: "Reshape",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "reshape", targets: ["reshape"]),
        .executable(name: "reshape-demo-upstream", targets: ["reshape-demo-upstream"]),
        // For fuzz/Package.swift, whose libFuzzer drivers call these properties (built there with
        // libFuzzer and ASan flags, apart from this build); see docs/hardening.md.
        .library(name: "ReshapeFuzzTargets", targets: ["ReshapeFuzzTargets"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "CHTTPParser", providers: [.apt(["libhttp-parser-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CCompression", providers: [.apt(["libisal-dev", "libbrotli-dev", "libzstd-dev"])]),

        // Stage 1 of the JSON parser (SIMD structural index); C so it can pick AVX2 or SSE4.2 at run time.
        // DWARF 4, because clang's default DWARF 5 stops Debian 12's valgrind (bench/callgrind) reading the binary.
        .target(name: "CJSONIndex", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        // libcurl (Debian's libcurl4 at run time, its -dev package's headers to build), loaded by
        // dlopen when a server starts rather than linked: Sources/CCurl/include/CCurl.h says why.
        .target(name: "CCurl", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .target(name: "ReshapeJSON", dependencies: ["CJSONIndex"]),
        .target(name: "ReshapeRegex", dependencies: ["CPCRE2"]),
        .target(name: "ReshapeSchema", dependencies: ["ReshapeJSON", "ReshapeRegex"]),
        .target(name: "ReshapeYAML", dependencies: ["CYAML"]),
        .target(
            name: "ReshapeRules",
            dependencies: ["ReshapeJSON", "ReshapeSchema", "ReshapeYAML", "ReshapeAuth", "ReshapeDigest"]),
        .target(name: "ReshapeDigest", dependencies: ["CCrypto"]),
        // Bearer tokens: JWKS key sets and JWT verification, the cryptography OpenSSL's.
        .target(name: "ReshapeAuth", dependencies: ["ReshapeJSON", "CCrypto"]),
        .target(name: "ReshapeCompression", dependencies: ["CCompression"]),
        // `impossible`, the one trap of every state machine.
        .target(name: "ReshapeStateMachines"),
        // The RFC 9457 problem, one type for error answers and live streams' error events.
        .target(name: "ReshapeProblem", dependencies: ["ReshapeJSON"]),
        .target(name: "ReshapeLive", dependencies: ["ReshapeJSON", "ReshapeProblem", "ReshapeStateMachines"]),
        // The OpenAPI 3.1 document of a rule set, response schemas derived from the transforms.
        .target(name: "ReshapeOpenAPI", dependencies: ["ReshapeRules", "ReshapeSchema", "ReshapeJSON"]),
        .target(
            name: "ReshapeProxy",
            dependencies: [
                "ReshapeRules", "ReshapeJSON", "ReshapeDigest", "ReshapeOpenAPI", "ReshapeCompression", "ReshapeLive",
                "ReshapeProblem", "ReshapeStateMachines", "ReshapeAuth",
            ],
            swiftSettings: releaseWithoutExclusivityChecks),
        .target(
            name: "ReshapeServer",
            dependencies: [
                "ReshapeProxy", "ReshapeRules", "ReshapeOpenAPI", "ReshapeJSON", "ReshapeProblem",
                "ReshapeStateMachines",
                "CLibUV",
                "CCurl",
                "CHTTPParser", "CHiredis",
            ],
            swiftSettings: releaseWithoutExclusivityChecks),
        // Authoring tools over rule sets (infer, explain): kept out of ReshapeRules so that the
        // serving path carries none of it.
        .target(name: "ReshapeContract", dependencies: ["ReshapeRules", "ReshapeSchema", "ReshapeJSON"]),
        .executableTarget(
            name: "reshape",
            dependencies: [
                "ReshapeServer", "ReshapeProxy", "ReshapeRules", "ReshapeSchema", "ReshapeJSON", "ReshapeContract",
                "ReshapeOpenAPI", "ReshapeLive",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // A small blocking HTTP server with canned Firebase-shaped data and fault modes,
        // used by the quick start, docker-compose and the integration tests.
        // Also a small identity provider: an RSA key pair made at start signs demo ID tokens.
        .executableTarget(name: "reshape-demo-upstream", dependencies: ["CCrypto"]),
        // Every fuzz target's input properties (fuzz/ holds only the libFuzzer drivers): here, so
        // they reach the modules' package-visible API; the only public API is one function each.
        .target(
            name: "ReshapeFuzzTargets",
            dependencies: [
                "ReshapeJSON", "ReshapeSchema", "ReshapeRules", "ReshapeLive", "ReshapeProxy", "ReshapeServer",
                "ReshapeAuth",
                "CCurl",
            ]),
        .executableTarget(
            name: "reshape-bench", dependencies: ["ReshapeRules", "ReshapeSchema", "ReshapeJSON"], path: "bench/Sources"
        ),
        // CPU per upstream change of a live stream, record by record against the whole pipeline.
        .executableTarget(
            name: "reshape-live-bench", dependencies: ["ReshapeLive", "ReshapeProxy", "ReshapeRules", "ReshapeJSON"],
            path: "bench/Live"),

        // What the test targets share: death tests, the seeded generator, the users rule
        // fixture, waiting on a condition, and the harness that runs the built executables.
        // A plain target, so that several test targets can depend on it; no product has it.
        .target(name: "ReshapeTestSupport", path: "Tests/ReshapeTestSupport"),

        .testTarget(name: "ReshapeJSONTests", dependencies: ["ReshapeJSON", "CJSONIndex", "ReshapeTestSupport"]),
        .testTarget(name: "ReshapeCompressionTests", dependencies: ["ReshapeCompression"]),
        .testTarget(
            name: "ReshapeAuthTests", dependencies: ["ReshapeAuth", "ReshapeJSON"], exclude: ["mint_tokens.py"]),
        .testTarget(
            name: "ReshapeLiveTests",
            dependencies: ["ReshapeLive", "ReshapeJSON", "ReshapeRules", "ReshapeProxy", "ReshapeTestSupport"]),
        .testTarget(
            name: "ReshapeSchemaTests",
            dependencies: ["ReshapeSchema", "ReshapeJSON", "ReshapeRegex", "ReshapeTestSupport"]),
        .testTarget(
            name: "ReshapeRulesTests", dependencies: ["ReshapeRules", "ReshapeSchema", "ReshapeJSON", "ReshapeTestSupport"]),
        .testTarget(name: "ReshapeContractTests", dependencies: ["ReshapeContract", "ReshapeRules", "ReshapeJSON"]),
        .testTarget(
            name: "ReshapeProxyTests",
            dependencies: [
                "ReshapeProxy", "ReshapeRules", "ReshapeJSON", "ReshapeCompression", "ReshapeDigest",
                "ReshapeStateMachines", "ReshapeAuth",
                "ReshapeTestSupport",
            ]),
        .testTarget(
            name: "ReshapeServerTests",
            dependencies: [
                "ReshapeServer", "ReshapeJSON", "ReshapeLive", "ReshapeAuth", "ReshapeTestSupport", "reshape",
                "reshape-demo-upstream",
            ],
            exclude: ["Harness/otlp_receiver.py", "Auth/mint_route_tokens.py"]),
        .testTarget(name: "CLITests", dependencies: ["reshape", "ReshapeJSON"]),
        .testTarget(
            name: "ReshapeOpenAPITests",
            dependencies: ["ReshapeOpenAPI", "ReshapeRules", "ReshapeSchema", "ReshapeJSON", "ReshapeTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
