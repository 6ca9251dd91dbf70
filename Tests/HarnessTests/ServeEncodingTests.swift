import Foundation
import Harness
import Imaging
import TestSupport
import Testing

/// `bench serve --encoding <name>` serves the fixture under the extension of its encoding (and says
/// so), so a client that goes by the name sees a PNG as .png; JPEG keeps /fixture.jpg.
@Suite struct ServeEncodingTests {
    @Test func aPNGFixtureIsServedAsFixturePNG() throws {
        let cache = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let server = try ServeProcess([
            "--encoding", "png-rgb", "--width", "64", "--height", "48",
            "--fixture-cache", cache.path, "--seconds", "300",
        ])
        #expect(server.servingLine.contains("http://127.0.0.1:\(server.port)/fixture.png "), "\(server.servingLine)")
        #expect(try server.curl("/fixture.png") == 200)
        #expect(try server.curl("/fixture.jpg") == 404, "a PNG is not served under .jpg")
    }

    @Test func aJPEGFixtureKeepsFixtureJPG() throws {
        let cache = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let server = try ServeProcess([
            "--encoding", "jpeg-progressive", "--width", "64", "--height", "48",
            "--fixture-cache", cache.path, "--seconds", "300",
        ])
        #expect(server.servingLine.contains("http://127.0.0.1:\(server.port)/fixture.jpg "), "\(server.servingLine)")
        #expect(try server.curl("/fixture.jpg") == 200)
    }

    @Test func theHelpNamesThePathByEncoding() throws {
        let help = try BenchProcess.run(["serve", "--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("/fixture.png"), "\(help.standardOutput)")
    }

    /// `bench run`'s embedded server names the fixture as `bench serve` does: by its encoding's extension.
    @Test func theEmbeddedServerNamesTheFixtureByItsEncoding() {
        let expected: [FixtureEncoding: String] = [
            .jpeg: "/fixture.jpg", .jpegProgressive444: "/fixture.jpg", .pngRGB: "/fixture.png",
            .pngRGBAInterlaced: "/fixture.png", .webpLossless: "/fixture.webp", .heic: "/fixture.heic",
            .avif: "/fixture.avif",
        ]
        for (encoding, path) in expected { #expect(BenchmarkRunner.fixturePath(encoding) == path, "\(encoding)") }
    }
}
