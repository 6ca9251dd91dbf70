import CJPEGCodec
import Foundation
import Imaging
import Testing

@Suite struct FixtureTests {
    @Test func sameSpecGivesSameBytes() throws {
        let spec = FixtureSpec(width: 320, height: 240)
        let first = try FixtureGenerator.makeJPEG(spec)
        let second = try FixtureGenerator.makeJPEG(spec)
        #expect(first == second)
    }

    @Test func differentSeedGivesDifferentBytesAndKey() throws {
        let one = FixtureSpec(width: 320, height: 240, seed: 1)
        let two = FixtureSpec(width: 320, height: 240, seed: 2)
        #expect(try FixtureGenerator.makeJPEG(one) != FixtureGenerator.makeJPEG(two))
        #expect(one.cacheKey != two.cacheKey)
    }

    /// The fixture is deterministic: with the libjpeg-turbo it was tuned on (Debian 12's 2.1.5) it
    /// has exactly this many bytes, the article's 13.1 MB; another libjpeg may encode the same pixels
    /// to other bytes (the cache key holds the version for that reason), so elsewhere only the range holds.
    @Test func articleFixtureHasItsExactSize() throws {
        let size = Fixtures.article.count
        #expect((12_450_000...13_750_000).contains(size))
        #expect(try JPEGDecoder.imageSize(of: .memory(Fixtures.article)) == (6000, 4000))
        if jpegcodec_library_version() == 2_001_005 {
            #expect(size == 13_108_402)
        } else {
            Issue.record(
                "libjpeg-turbo \(jpegcodec_library_version()) is not the 2.1.5 the exact size was measured with: \(size) bytes"
            )
        }
    }

    @Test func sizeScalesWithPixelCount() {
        // 1000x800 is 1/30 of the article's pixels: expect roughly 1/30 of its bytes.
        let perPixelSmall = Double(Fixtures.small.count) / Double(1000 * 800)
        let perPixelArticle = Double(13_100_000) / Double(6000 * 4000)
        #expect(abs(perPixelSmall / perPixelArticle - 1) < 0.2)
    }

    @Test func progressiveFixtureDecodes() throws {
        let data = try FixtureGenerator.makeJPEG(FixtureSpec(width: 200, height: 100, progressive: true))
        let image = try JPEGDecoder.decodeFull(.memory(data))
        #expect((image.width, image.height) == (200, 100))
    }

    @Test func invalidSpecThrows() {
        #expect(throws: ImagingError.self) { try FixtureGenerator.makeJPEG(FixtureSpec(width: 0, height: 10)) }
        #expect(throws: ImagingError.self) {
            try FixtureGenerator.makeJPEG(FixtureSpec(width: 10, height: 10, quality: 101))
        }
    }

    @Test func cacheKeyAndFileName() {
        let spec = FixtureSpec.article
        #expect(spec.cacheKey.count == 16)
        #expect(spec.cacheKey.allSatisfy { $0.isHexDigit })
        #expect(spec.cacheKey == FixtureSpec().cacheKey)
        #expect(spec.fileName == "fixture-6000x4000-q90-baseline-s1-\(spec.cacheKey.prefix(8)).jpg")
        #expect(FixtureSpec(progressive: true).fileName.contains("-progressive-"))
        #expect(FixtureSpec(quality: 80).cacheKey != spec.cacheKey)
    }

    @Test func specRoundTripsThroughJSON() throws {
        let spec = FixtureSpec(width: 10, height: 20, quality: 70, progressive: true, seed: 99)
        let decoded = try JSONDecoder().decode(FixtureSpec.self, from: JSONEncoder().encode(spec))
        #expect(decoded == spec)
    }

    @Test func cachedFixtureIsWrittenOnceAndReused() throws {
        try withTemporaryDirectory { root in
            let directory = root.appendingPathComponent("nested/fixtures")
            let spec = FixtureSpec(width: 160, height: 120)
            let url = try FixtureGenerator.cachedFixture(spec, in: directory)
            #expect(url.lastPathComponent == spec.fileName)
            #expect(try Data(contentsOf: url) == FixtureGenerator.makeJPEG(spec))

            // A second call must not regenerate: mark the file and check the mark survives.
            try Data("marker".utf8).write(to: url)
            #expect(try FixtureGenerator.cachedFixture(spec, in: directory) == url)
            #expect(try Data(contentsOf: url) == Data("marker".utf8))

            // No temporary files left behind.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [spec.fileName])
        }
    }

    @Test func defaultCacheDirectory() {
        let path = FixtureGenerator.defaultCacheDirectory.path
        #expect(path.hasSuffix("/image-memory-bench/fixtures"))
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            #expect(path.hasPrefix(xdg))
        } else {
            #expect(path.contains("/.cache/"))
        }
    }
}
