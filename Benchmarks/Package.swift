// swift-tools-version: 6.1
// The building blocks of the harness under package-benchmark, as swift-nio does it: a package of
// its own, so the main package never depends on the benchmark tooling or its malloc interposer.
// Run from this folder:  swift package benchmark thresholds check --path Thresholds
import PackageDescription

let package = Package(
    name: "ImageMemoryBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Named, so the product references below hold whatever the checkout's folder is called.
        .package(name: "ImageMemoryBench", path: ".."),
        // MallocInterposer counts every malloc; naming the trait also leaves out the default
        // RuntimeInterposer (ARC counters on Swift 6.3), which these benchmarks do not use.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "BuildingBlocks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Imaging", package: "ImageMemoryBench"),
                .product(name: "Strategies", package: "ImageMemoryBench"),
                .product(name: "LoopbackServer", package: "ImageMemoryBench"),
            ],
            path: "Benchmarks/BuildingBlocks",
            swiftSettings: [.swiftLanguageMode(.v5)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
