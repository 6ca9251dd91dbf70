import Foundation
import Harness
import ImageMemoryBench
import Imaging
import Testing

/// A user's async renderer as the child runs it (bridged to the harness's blocking protocol):
/// its image comes back with its size, its own errors become the row's decode error in its words,
/// and the harness's decoders' errors keep their type (a decompression bomb stays `overBudget`).
/// The bridge blocks its caller, so each test calls it from a thread of its own, as the child's
/// trial thread does, and awaits it without blocking: the concurrency pool's threads, which run the
/// tests and the render, must stay free.
@Suite struct UserRendererTests {
    static func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    struct Misbehaving: Error, CustomStringConvertible {
        var description: String { "the codec said no" }
    }

    /// Decodes with the harness's decoder unless the body is "fail".
    struct Decoding: ImageRenderer {
        static let name = "test-decoding"
        static let summary = "test renderer"
        let limits: RenderLimits
        init(limits: RenderLimits) { self.limits = limits }
        func render(_ payload: Payload) async throws -> RenderedImage {
            if case .memory(let data) = payload, data == Data("fail".utf8) { throw Misbehaving() }
            guard case .memory(let data) = payload else { throw Misbehaving() }
            let image = try ImageDecoder.decodeFull(.memory(data), maxImagePixels: limits.maxImagePixels)
            return RenderedImage(width: image.width, height: image.height, storage: image)
        }
    }

    static func jpeg(width: Int, height: Int) throws -> Data {
        try JPEGEncoder.encodeRGB(width: width, height: height, quality: 80, progressive: false) { _, row in
            for x in 0..<width * 3 { row[x] = UInt8(truncatingIfNeeded: x) }
        }
    }

    @Test func theRenderedImageComesBackWithItsSize() async throws {
        let jpeg = try Self.jpeg(width: 40, height: 24)
        let image = try await Self.onOwnThread {
            let renderer = Decoding.catalogEntry.init(limits: RenderLimits(maxPixel: 64, maxImagePixels: 1_000_000))
            try renderer.warmUp(image: nil)
            return try renderer.render(.memory(jpeg))
        }
        let rendered = try #require(image)
        #expect(rendered.width == 40 && rendered.height == 24)
        #expect(rendered.storage is DecodedImage)
    }

    @Test func theRenderersOwnErrorIsADecodeErrorInItsWords() async throws {
        do {
            _ = try await Self.onOwnThread {
                try Decoding.catalogEntry.init(limits: RenderLimits(maxPixel: 64, maxImagePixels: 1_000_000)).render(
                    .memory(Data("fail".utf8))
                )
            }
            Issue.record("a failing render returned")
        } catch let FetchError.undecodable(message) {
            #expect(
                message.contains("test-decoding") && message.contains("Misbehaving")
                    && message.contains("the codec said no"),
                "\(message)"
            )
        } catch {
            Issue.record("expected FetchError.undecodable, got \(type(of: error)): \(error)")
        }
    }

    @Test func theHarnessDecodersErrorsKeepTheirType() async throws {
        let jpeg = try Self.jpeg(width: 40, height: 24)
        await #expect(throws: ImagingError.self) {
            _ = try await Self.onOwnThread {
                try Decoding.catalogEntry.init(limits: RenderLimits(maxPixel: 64, maxImagePixels: 100)).render(
                    .memory(jpeg)
                )
            }
        }
    }

    /// The trial's limits may refuse the tiny warm-up image itself: the warm-up goes on, and the
    /// measured render's error is about the measured image.
    @Test func aWarmUpTheLimitsRefuseIsNotTheTrialsFailure() async throws {
        let jpeg = try Self.jpeg(width: 40, height: 24)
        do {
            _ = try await Self.onOwnThread {
                let renderer = Decoding.catalogEntry.init(limits: RenderLimits(maxPixel: 64, maxImagePixels: 100))
                try renderer.warmUp(image: nil)
                return try renderer.render(.memory(jpeg))
            }
            Issue.record("a 40x24 image was rendered within a budget of 100 pixels")
        } catch let error as ImagingError {
            #expect(error.description.contains("40x24"), "the error is not about the measured image: \(error)")
        }
    }
}
