import Benchmark
import Foundation
import Imaging
import LoopbackServer
import Strategies

/// The pieces a trial is made of, each measured alone: decoding the article's 6000x4000 JPEG
/// (full bitmap, DCT-scaled thumbnail) and fetching it with each strategy from the loopback server.
/// Gated on malloc counts and peak resident memory (static thresholds in Thresholds/, one file per
/// benchmark: package-benchmark skips a benchmark without one); time is measured but not gated, as a
/// shared 2-core runner makes it too noisy to fail a build on.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 10)

    // The fixture is made (or reused from the cache) once per benchmark process, outside the measurement.
    let fixture = try! Data(
        contentsOf: FixtureGenerator.cachedFixture(.article, in: FixtureGenerator.defaultCacheDirectory)
    )

    // Tolerances from the spread over repeated runs on the 2-core Debian machine (see README.md).
    // A check fails when either the relative or the absolute difference is exceeded, in either direction,
    // so the tighter of the two applies. Decoding: malloc counts are exact (13 and 11 in every run): no
    // tolerance at all.
    gated("decode-full", mallocs: (0, 0)) { _ in
        blackHole(try JPEGDecoder.decodeFull(.memory(fixture)))
    }
    gated("decode-thumbnail", mallocs: (0, 0)) { _ in
        blackHole(try JPEGDecoder.decodeThumbnail(.memory(fixture), maxPixel: 1024))
    }

    // The stream renderer's decode of a 6000x4000 progressive JPEG (every scan in lockstep, one block
    // row of coefficients) and libjpeg-turbo's DCT-scaled decode of the same file (the thumbnail
    // renderer: the whole image's coefficients), both to 1024 on the long side. Timed, not gated (no
    // threshold files: time on a shared 2-core runner is too noisy to fail a build on). The stream
    // renderer's time targets are judged by the decode-time study (`make decode-time`), which times
    // the two in pairs, decode by decode, by the decoding thread's CPU time.
    let progressive = try! Data(
        contentsOf: FixtureGenerator.cachedFixture(
            .articleProgressive,
            in: FixtureGenerator.defaultCacheDirectory
        )
    )
    let timed = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal],
        warmupIterations: 1,
        maxDuration: .seconds(120),
        maxIterations: 7
    )
    Benchmark("progressive-thumbnail", configuration: timed) { _ in
        blackHole(try ImageDecoder.decodeThumbnail(.memory(progressive), maxPixel: 1024))
    }
    Benchmark("progressive-stream", configuration: timed) { _ in
        blackHole(try ImageDecoder.decodeStreaming(.memory(progressive), maxPixel: 1024))
    }

    // Fetching: malloc counts follow how the body arrives in chunks (URLSession's vary by hundreds
    // between runs), so they get a tolerance from the measured spread. URLSession's in-memory
    // fetches leave a process peak that varies by up to 20 MB between processes (75-98 MB seen, and
    // 95 against a stored 83 in a check after the merge): 20 % or 16 MB around the middle of the
    // measured range, which an extra 13.1 MB copy does not reliably exceed; the per-run gate
    // (`bench compare`) is the memory check for them (see README.md). The other fetches (files,
    // libcurl) moved by up to 5.3 MB between checks (curl-memory 75.3 then 70): 10 % or 8 MB, which
    // an extra copy of the payload still exceeds.
    let inMemoryURLSession: Set<String> = ["data", "async-data", "data-publisher", "future", "contents-of"]
    for strategy in StrategyCatalog.all {
        let served = ServedFixture(body: fixture, name: strategy.name)
        gated(
            "fetch-\(strategy.name)",
            mallocs: (20, 1_500),
            resident: inMemoryURLSession.contains(strategy.name) ? (20, 16_000_000) : (10, 8_000_000),
            setup: served.start,
            teardown: served.stop
        ) { _ in
            let outcome = try strategy.init(workDirectory: served.workDirectory).fetch(url: served.url)
            blackHole(outcome.payload.byteCount)
            if case .file(let file) = outcome.payload { try? FileManager.default.removeItem(at: file) }
        }
    }
}

/// Registers `name-mallocs` and `name-resident`: two benchmarks of the same work, because
/// package-benchmark's resident-memory sampler is a thread that allocates every ~5 ms, and its
/// mallocs would otherwise be counted as the work's (they made decode-full's count vary 117-193).
/// Names have no spaces: 1.38.1 writes threshold files with spaces turned into '_' but looks them up unchanged.
///
/// `-resident` runs the work once after one warm-up, in its own process: package-benchmark's
/// resident peak is the process's peak since sampling began, so over 10 iterations it measured how
/// much the allocator kept between iterations (the data task: 94.5-150 MB) and hid an extra copy of
/// the payload. One iteration, no warm-up (a warm-up's leftovers moved the peak by up to 8 MB),
/// repeats within ~2 MB for decoding and file downloads, and the default tolerance (5 % or 6 MB, the
/// tighter) fails an extra 13.1 MB copy. The stored thresholds are the middle of the measured range.
func gated(
    _ name: String,
    mallocs: (percent: Double, count: Int),
    resident: (percent: Double, bytes: Int) = (5, 6_000_000),
    setup: Benchmark.BenchmarkSetupHook? = nil,
    teardown: Benchmark.BenchmarkTeardownHook? = nil,
    work: @escaping Benchmark.BenchmarkThrowingClosure
) {
    Benchmark(
        "\(name)-mallocs",
        configuration: .init(
            metrics: [.mallocCountTotal],
            thresholds: [.mallocCountTotal: .init(relative: [.p90: mallocs.percent], absolute: [.p90: mallocs.count])],
            setup: setup,
            teardown: teardown
        ),
        closure: work
    )
    Benchmark(
        "\(name)-resident",
        configuration: .init(
            metrics: [.peakMemoryResident],
            warmupIterations: 0,
            maxIterations: 1,
            thresholds: [
                .peakMemoryResident: .init(relative: [.p90: resident.percent], absolute: [.p90: resident.bytes])
            ],
            setup: setup,
            teardown: teardown
        ),
        closure: work
    )
}

/// The fixture on a loopback server in the benchmark's own process, with a folder for downloads;
/// started in the benchmark's setup so that neither is part of the measurement.
final class ServedFixture: @unchecked Sendable {
    let body: Data
    let workDirectory: URL
    private var server: LoopbackServer?

    init(body: Data, name: String) {
        self.body = body
        workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("benchmark-\(name)-\(getpid())")
    }

    var url: URL { server!.url(for: "/fixture.jpg") }

    func start() throws {
        let server = LoopbackServer()
        server.addResource(path: "/fixture.jpg", body: body, contentType: "image/jpeg")
        try server.start()
        self.server = server
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
    }

    func stop() throws {
        server?.shutdown()
        server = nil
        try? FileManager.default.removeItem(at: workDirectory)
    }
}
