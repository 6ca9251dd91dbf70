// swift-tools-version: 6.1
// Measures AsyncHTTPClient's two ways of receiving a body with the image-memory-bench harness,
// beside its built-in URLSession strategies: what a user's package that measures its own loader
// looks like. Build and run from this folder:
//   swift build -c release && .build/release/ahc-bench list
import PackageDescription

// The harness is this repository, two folders up. A path dependency's identity is the name of its
// folder, which differs between checkouts; a package of your own names the harness by its URL.
let harnessFolder = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "image-memory-bench")

let package = Package(
    name: "AsyncHTTPClientLoader",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "ahc-bench",
            dependencies: [
                .product(name: "ImageMemoryBench", package: harnessFolder),
                // The harness's decoders, which the example's own renderer uses; yours would use your own.
                .product(name: "Imaging", package: harnessFolder),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Sources/AsyncHTTPClientBench"
        )
    ]
)
