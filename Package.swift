// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ImageMemoryBench",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "bench", targets: ["bench"]),
        // For a user's package: their strategies measured with the whole bench command line
        // (Examples/AsyncHTTPClientLoader). It brings CHeapPeak into their executable, on purpose.
        .library(name: "ImageMemoryBench", targets: ["ImageMemoryBench"]),
        // For Benchmarks/, a package of its own that depends on this one by path. None of the three
        // may reach CHeapPeak: Benchmarks/ links package-benchmark's own malloc interposer.
        .library(name: "Imaging", targets: ["Imaging"]),
        .library(name: "Strategies", targets: ["Strategies"]),
        .library(name: "LoopbackServer", targets: ["LoopbackServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        // The image server scenario's measured child (`bench scenario image-server`); its traits off:
        // swift-configuration is not needed, and Foundation is what the rest of bench links anyway.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
        // `swift package generate-documentation` for ImageMemoryBench's DocC catalog (scripts/check-shape.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
    ],
    targets: [
        // MARK: C libraries and thin shims
        .systemLibrary(
            name: "CLibCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]
        ),
        .systemLibrary(name: "CLibPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CLibWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        // libheif 1.15 decodes HEIC with libde265, AVIF with dav1d, and encodes with x265 and aom.
        // Header only, deliberately not linked: CHEIFCodec loads it on first use (its library.h).
        .systemLibrary(name: "CLibHeif", providers: [.apt(["libheif-dev"])]),
        // Header only, deliberately not linked: jemalloc is preloaded into the measured
        // child (LD_PRELOAD), never linked into bench, and `mallctl` is found with dlsym.
        .systemLibrary(name: "CJemalloc", providers: [.apt(["libjemalloc-dev"])]),
        // libjpeg reports errors with longjmp, which Swift cannot catch: this shim owns setjmp.
        .target(name: "CJPEGCodec", dependencies: ["CLibJPEG"]),
        // The same for libpng (setjmp owned in C), with the streaming box-downscaled thumbnail.
        .target(name: "CPNGCodec", dependencies: ["CLibPNG", "CResample"], linkerSettings: [.linkedLibrary("z")]),
        // The stream renderer's area-averaging resampler, shared by every format's stream path.
        .target(name: "CResample"),
        // Our own Huffman JPEG decoder for the stream renderer: every scan in lockstep, one row of
        // coefficients held instead of the image's (libjpeg keeps all of a multi-scan file's).
        .target(name: "CStreamJPEG", dependencies: ["CResample"], linkerSettings: [.linkedLibrary("m")]),
        .target(name: "CWebPCodec", dependencies: ["CLibWebP"]),
        .target(name: "CHEIFCodec", dependencies: ["CLibHeif", "CResample"]),
        // Reads allocator counters (jemalloc via dlsym'd mallctl, glibc via mallinfo2) without allocating.
        .target(name: "CHeapStats", dependencies: ["CJemalloc"]),
        // Defines malloc and friends to keep an exact live-bytes maximum. Linked into every
        // executable that uses Probe: bench, the test runner, and a user's executable through the
        // ImageMemoryBench product (on purpose: the exact heap peak needs no LD_PRELOAD library).
        .target(name: "CHeapPeak"),
        // Defines pthread_create so that, under `--memory-limit`, a thread that cannot start ends
        // the child at once (libdispatch would retry forever). Linked into bench through Scenarios.
        .target(name: "CThreadGuard"),
        // Defines connect in the executable: a measured child with BENCH_LOOPBACK_ONLY=1 refuses any
        // connection off loopback (a redirect that leaves it included).
        .target(name: "CLoopbackGuard"),
        // What Glibc's Swift module hides, for the children: a spawn that closes every descriptor it
        // was not given (closefrom), and in a measured child a death signal and a backstop of its own.
        .target(name: "CChildGuard"),

        // MARK: Swift modules, one job each
        // The core everything else stands on, with no dependency of ours and no framework:
        // trial specs and results, cells, the enums, CSV/JSON exports, statistics, the gate.
        .target(name: "BenchCore"),
        // Encodes the fixture in every encoding, finds an image's format from its bytes and
        // decodes it (full RGBA, or a thumbnail by the format's cheapest path).
        .target(
            name: "Imaging",
            dependencies: [
                "BenchCore", "CJPEGCodec", "CStreamJPEG", "CResample", "CPNGCodec", "CWebPCodec", "CHEIFCodec",
                "CLibPNG", "CLibWebP",
            ]
        ),
        // HTTP/1.1 server on loopback that serves the fixture; runs in the parent only.
        .target(
            name: "LoopbackServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // In-child measurement: RSS and heap sampler, VmHWM reset, the exact heap peak.
        .target(name: "Probe", dependencies: ["BenchCore", "CHeapStats", "CHeapPeak", "CThreadGuard"]),
        // The ways of fetching an image that are measured (URLSession, libcurl, ...).
        // The article's custom Combine publisher for URLSession download tasks (OpenCombine).
        .target(
            name: "DownloadPublisher",
            dependencies: [
                .product(name: "OpenCombine", package: "OpenCombine")
            ]
        ),
        .target(
            name: "Strategies",
            dependencies: [
                "BenchCore", "CLibCurl", "DownloadPublisher", "Imaging",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineFoundation", package: "OpenCombine"),
            ]
        ),
        // The child's trial, and the parent that spawns children.
        .target(
            name: "Harness",
            dependencies: [
                "BenchCore", "Probe", "Strategies", "Imaging", "LoopbackServer", "CLoopbackGuard", "CChildGuard",
                "CThreadGuard",
            ]
        ),
        // The results folder and its writers, a run's report tables and its chart data.
        .target(name: "Report", dependencies: ["BenchCore"]),
        // App-like workloads: a scrolling list with cancellation, an image cache, shared requests.
        .target(
            name: "Scenarios",
            dependencies: [
                "BenchCore", "Harness", "Imaging", "ImageServer", "LoopbackServer", "Probe", "Strategies",
                "CThreadGuard",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineFoundation", package: "OpenCombine"),
            ]
        ),
        // A folder or URL list of images: discovery, format sniffing, serving, corpus.csv and its ranking.
        .target(
            name: "Corpus",
            dependencies: ["BenchCore", "Harness", "Imaging", "Report", "LoopbackServer", "Strategies"]
        ),
        // The image server scenario's measured child: Hummingbird on loopback, fetching from the parent's
        // origin with a strategy per request, rendering on a pool, counting requests by stage.
        .target(
            name: "ImageServer",
            dependencies: [
                "BenchCore", "Harness", "Imaging", "Probe", "Strategies",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // ByteBuffer to Data without a copy (POST /image's collected body); Hummingbird builds it already.
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
        // The parent's measurements: a run, a sweep, a corpus or a scroll scenario, each with its folder
        // (opened or resumed, locked, owned), shard record, progress line, rows and exit status.
        .target(
            name: "Measuring",
            dependencies: [
                "BenchCore", "Harness", "Report", "Imaging", "LoopbackServer", "Probe", "Scenarios", "Strategies",
                "Corpus", "ImageServer",
            ]
        ),
        // The bench command line: run, list, compare, report, corpus, ... and the children's _trial.
        // Commands parse their options and hand a Measuring type what to measure.
        .target(
            name: "BenchCommandLine",
            dependencies: [
                "BenchCore", "Harness", "Report", "Imaging", "LoopbackServer", "Probe", "Scenarios", "Strategies",
                "Corpus", "ImageServer",
                "Measuring",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The public API: a user's strategies added to the catalog and the command line run with them.
        .target(
            name: "ImageMemoryBench",
            dependencies: ["BenchCore", "BenchCommandLine", "Harness", "Imaging", "Strategies"]
        ),
        .executableTarget(name: "bench", dependencies: ["ImageMemoryBench"]),

        // MARK: This repository's reference, for its maintainers (no product reaches these)
        // The generators of README.md's figures, results/REPORT.md and results/SCENARIO.md from the
        // committed results (results/), and `bench-reference`, which `make reference` runs.
        .target(
            name: "ReferenceDocuments",
            dependencies: ["BenchCore", "Report", "Scenarios", "Harness", "ImageServer", "Strategies", "CChildGuard"]
        ),
        .executableTarget(
            name: "bench-reference",
            dependencies: [
                "BenchCore", "Report", "ReferenceDocuments", "Scenarios", "Measuring", "Imaging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/BenchReference"
        ),
        // The fuzz target over the header inspectors and the result-file readers (scripts/fuzz.sh,
        // `make fuzz`, builds it with -sanitize=fuzzer -D FUZZING); a plain build replays inputs.
        .executableTarget(name: "BenchFuzz", dependencies: ["BenchCore", "Imaging", "Report", "ReferenceDocuments"]),

        // MARK: Tests
        // Helpers more than one test target uses: a raw TCP client, a decompression-bomb JPEG, the bench
        // binary's path, hostile headers, images only the tests make (TestImages) and the recorded
        // children that stand in for real ones (RecordedChildren).
        .target(name: "TestSupport", dependencies: ["BenchCore", "CTestImages", "Harness"], path: "Tests/TestSupport"),
        // Encoders only the tests need: CMYK, YCCK and arithmetic-coded JPEGs, a palette PNG.
        .target(name: "CTestImages", dependencies: ["CLibJPEG", "CLibPNG"], path: "Tests/CTestImages"),
        .testTarget(
            name: "ImagingTests",
            dependencies: ["Imaging", "CJPEGCodec", "CStreamJPEG", "TestSupport", "CTestImages"]
        ),
        .testTarget(name: "LoopbackServerTests", dependencies: ["LoopbackServer", "TestSupport"]),
        .testTarget(name: "ProbeTests", dependencies: ["BenchCore", "Probe", "CHeapPeak"]),
        // Builds without NIO, libcurl or any C library: the gate and the statistics alone.
        .testTarget(name: "BenchCoreTests", dependencies: ["BenchCore"]),
        .testTarget(name: "ReportTests", dependencies: ["BenchCore", "Report", "ReferenceDocuments"]),
        // What the committed reference (results/) and the documents' generated figures say: run by
        // `make test`, and by `make reference` after it re-measures, so a re-measure is checked.
        .testTarget(
            name: "ReferenceTests",
            dependencies: [
                "BenchCore", "Report", "ReferenceDocuments", "Measuring", "Scenarios", "TestSupport", "bench",
                "bench-reference",
            ]
        ),
        // Each strategy and the download publisher against the real loopback server.
        .testTarget(name: "StrategiesTests", dependencies: ["Strategies", "Imaging", "LoopbackServer"]),
        .testTarget(
            name: "DownloadPublisherTests",
            dependencies: [
                "DownloadPublisher", "LoopbackServer",
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        // Spawns the real `bench` binary against the real server.
        .testTarget(
            name: "ScenariosTests",
            dependencies: [
                "BenchCommandLine", "BenchCore", "Harness", "Scenarios", "Report", "ReferenceDocuments", "Imaging",
                "LoopbackServer", "Probe", "bench", "TestSupport",
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        .testTarget(name: "CorpusTests", dependencies: ["BenchCore", "Corpus"]),
        // The image server: its floor, slopes and gauges in-process, its routes and load in real children.
        .testTarget(
            name: "ImageServerTests",
            dependencies: [
                "BenchCore", "Harness", "ImageServer", "Imaging", "LoopbackServer", "Scenarios", "Strategies", "bench",
                "TestSupport",
            ]
        ),
        .testTarget(name: "ImageMemoryBenchTests", dependencies: ["ImageMemoryBench", "Harness", "Imaging"]),
        // A measurement's life (stop, resume, shard, folder) below the command line, with real children.
        .testTarget(
            name: "MeasuringTests",
            dependencies: [
                "BenchCore", "Corpus", "Harness", "Imaging", "Measuring", "Report", "Scenarios", "bench", "TestSupport",
            ]
        ),
        // What a trial measures, in real children: each strategy and renderer's peaks, holders,
        // floors and residency, the probe's calibration, the child's failures, and `bench serve`.
        .testTarget(
            name: "HarnessTests",
            dependencies: [
                "BenchCore", "Harness", "Imaging", "Probe", "Report", "Strategies", "LoopbackServer", "Corpus",
                "bench", "TestSupport",
            ]
        ),
        // The commands, a folder each (Run, Corpus, Merge, Compare, Sweep, Fixture, Report, Reference)
        // and their Options: their folders and files when stopped, resumed, sharded, merged or written
        // somewhere hostile, and bad input; in-process (InProcessBench, recorded children) but for what
        // needs a real child.
        .testTarget(
            name: "CommandTests",
            dependencies: [
                "BenchCommandLine", "BenchCore", "Corpus", "Harness", "ImageServer", "Imaging", "LoopbackServer",
                "Probe", "Report", "ReferenceDocuments", "Scenarios", "bench", "bench-reference", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
