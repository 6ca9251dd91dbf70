import BenchCore
import Foundation
import Harness
import Imaging
import LoopbackServer

/// The parent side of `bench scenario list-scroll`: serves one distinct URL per row (bodies
/// cycle over a few fixtures of different sizes) from the loopback server, runs the scroll in
/// a child, and adds what only the parent can see: bytes the server sent, its request count,
/// and files the child left in its work folder.
package struct ListScrollScenario {
    package struct Settings {
        package var strategy: ScrollStrategy
        package var render: RenderMode
        package var rows = 100
        package var visibleRows = 8
        package var rowsPerSecond = 20.0
        package var maxConcurrent = 4
        package var cacheLimitBytes = 0
        package var maxPixel = 256
        package var maxImagePixels = DecodeBudget.defaultMaxImagePixels
        package var bandwidthBytesPerSecond: Int?
        package var fixtures: [FixtureSpec]
        package var fixtureCacheDirectory: URL
        package var timeoutSeconds = 120.0
        package var retries = 0
        package var fault: ScrollFault?
        package var faultEvery = 4
        package var memoryLimitBytes: Int?

        package init(strategy: ScrollStrategy, render: RenderMode, fixtures: [FixtureSpec], fixtureCacheDirectory: URL)
        {
            self.strategy = strategy
            self.render = render
            self.fixtures = fixtures
            self.fixtureCacheDirectory = fixtureCacheDirectory
        }
    }

    /// The default fixtures: a photo library's mix, from 0.5 to 24 megapixels (seeds make them distinct).
    package static let defaultFixtures: [FixtureSpec] = [
        (6000, 4000), (800, 600), (4000, 3000), (1600, 1200), (3000, 2000), (1024, 768), (2400, 1600), (1200, 900),
    ].enumerated().map {
        FixtureSpec(width: $0.element.0, height: $0.element.1, quality: 85, seed: UInt64(100 + $0.offset))
    }

    package var settings: Settings
    package var launcher: ListScrollLauncher

    package init(settings: Settings, launcher: ListScrollLauncher = ListScrollLauncher()) {
        self.settings = settings
        self.launcher = launcher
    }

    package func run(workDirectory: URL) throws -> ScrollResult {
        let bodies = try settings.fixtures.map {
            try Data(contentsOf: FixtureGenerator.cachedFixture($0, in: settings.fixtureCacheDirectory))
        }
        let warmup = try Data(
            contentsOf: FixtureGenerator.cachedFixture(
                FixtureSpec(width: 64, height: 48, seed: 7),
                in: settings.fixtureCacheDirectory
            )
        )
        let server = LoopbackServer(configuration: .init(bandwidthBytesPerSecond: settings.bandwidthBytesPerSecond))
        server.addResource(path: "/warmup.jpg", body: warmup, contentType: "image/jpeg")
        // One buffer per distinct body, shared by every row that shows it: `/row/N.jpg` serves
        // body N % count. (A copy per row held 1.19 GB at 400 rows, ~29 GB at 10,000.)
        server.addResourceFamily(
            prefix: "/row/",
            suffix: ".jpg",
            count: settings.rows,
            bodies: bodies,
            contentType: "image/jpeg"
        )
        let payloadBytesAllRows = (0..<settings.rows).reduce(0) { $0 + bodies[$1 % bodies.count].count }
        try server.start()
        defer { server.shutdown() }

        let spec = makeSpec(
            rowURL: { row in
                let path = "/row/\(row).jpg"
                guard let fault = settings.fault, row % settings.faultEvery == 0 else { return server.url(for: path) }
                return server.url(for: path, fault: fault.serverFault(bodyBytes: bodies[row % bodies.count].count))
            },
            warmupURL: server.url(for: "/warmup.jpg"),
            workDirectory: workDirectory
        )
        defer { try? FileManager.default.removeItem(at: workDirectory) }

        var result = launcher.launch(spec)
        // The warm-up is one whole transfer of a known body before the baseline; the rest is the scroll.
        let warmups = server.requestCount(path: "/warmup.jpg")
        result.bytesSent = server.bytesSent - warmups * warmup.count
        result.serverRequests = server.totalRequestCount - warmups
        result.payloadBytesAllRows = payloadBytesAllRows
        recordParentSettings(in: &result)
        result.leftoverFiles =
            ((try? FileManager.default.contentsOfDirectory(atPath: workDirectory.path)) ?? [])
            .filter { $0 != MemoryBudget.peakFileName && $0 != ChildSpec.fileName }.count
        return result
    }

    /// A result with these settings and nothing measured: what list-scroll.csv's settings columns of
    /// this scroll will say, known before it runs.
    package var plannedResult: ScrollResult {
        let placeholder = URL(string: "http://127.0.0.1/")!
        var result = ScrollResult(
            spec: makeSpec(
                rowURL: { _ in placeholder },
                warmupURL: nil,
                workDirectory: FileManager.default.temporaryDirectory
            )
        )
        recordParentSettings(in: &result)
        return result
    }

    private func recordParentSettings(in result: inout ScrollResult) {
        result.bandwidthBytesPerSecond = settings.bandwidthBytesPerSecond
        result.fixtureSizes = settings.fixtures.map { "\($0.width)x\($0.height)" }
        result.floorBytes = ScrollFloor.bytes(
            sizes: settings.fixtures.map { ($0.width, $0.height) },
            rows: settings.rows,
            visibleRows: settings.visibleRows,
            render: settings.render,
            maxPixel: settings.maxPixel
        )
    }

    private func makeSpec(rowURL: (Int) -> URL, warmupURL: URL?, workDirectory: URL) -> ScrollSpec {
        var spec = ScrollSpec(
            strategy: settings.strategy,
            render: settings.render,
            rowURLs: (0..<settings.rows).map(rowURL),
            warmupURL: warmupURL,
            visibleRows: settings.visibleRows,
            rowsPerSecond: settings.rowsPerSecond,
            maxConcurrent: settings.maxConcurrent,
            cacheLimitBytes: settings.cacheLimitBytes,
            workDirectory: workDirectory
        )
        spec.maxPixel = settings.maxPixel
        spec.maxImagePixels = settings.maxImagePixels
        spec.timeoutSeconds = settings.timeoutSeconds
        spec.retries = settings.retries
        spec.fault = settings.fault
        spec.faultEvery = settings.faultEvery
        spec.memoryLimitBytes = settings.memoryLimitBytes
        return spec
    }
}
