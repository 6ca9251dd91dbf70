import ArgumentParser
import BenchCore
import Foundation
import Harness
import Imaging
import Measuring

/// `bench render IMAGE --render R --out FILE`: what a built-in renderer makes of an image,
/// written as a picture (PPM, PAM or PNG by the extension), to look at or to compare.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Write what a renderer makes of an image as PPM, PAM (with alpha) or PNG, by --out's extension.",
        discussion: "The image is decoded from its file, as the download strategies' trials do. Only the built-in "
            + "renderers that make pixels can be written: \(Self.renderers.map(\.rawValue).joined(separator: ", "))."
    )

    static let renderers: [RenderMode] = RenderMode.builtIns.filter { $0 != .none }

    @Argument(help: "The image file (JPEG, PNG, WebP, HEIC or AVIF).")
    var image: String

    @Option(help: ArgumentHelp("Renderer (values: \(Self.renderers.map(\.rawValue).joined(separator: ", ")))."))
    var render: String

    @Option(help: ArgumentHelp("File to write; its extension picks the format (ppm, pam, png)."))
    var out: String

    @OptionGroup var limits: DecodeLimitOptions<RenderCommand>

    func validate() throws {
        guard Self.renderers.contains(RenderMode(rawValue: render)) else {
            throw ValidationError(
                "--render \(render): not a renderer that makes pixels; valid: "
                    + Self.renderers.map(\.rawValue).joined(separator: ", ")
            )
        }
        guard BitmapFile.format(ofPath: out) != nil else {
            throw ValidationError(
                "--out \(out): the extension must be one of "
                    + BitmapFile.Format.allCases.map(\.rawValue).joined(separator: ", ")
            )
        }
    }

    func run() throws {
        guard FileManager.default.isReadableFile(atPath: image) else {
            throw BenchFailure(.noInput, "\(image): no such readable file").reported()
        }
        let rendered: DecodedImage?
        do {
            rendered = try Renderer.render(
                .file(URL(fileURLWithPath: image)),
                mode: RenderMode(rawValue: render),
                maxPixel: limits.maxPixel,
                maxImagePixels: limits.maxImagePixels
            )
        } catch {
            throw BenchFailure(.badInput, "\(image): \(error)").reported()
        }
        guard let rendered, let format = BitmapFile.format(ofPath: out) else { return }
        do {
            try SafeFile.write(try BitmapFile.encode(rendered, as: format), to: out)
        } catch {
            throw BenchFailure(.cannotCreateOutput, "--out \(out): cannot write: \(error)").reported()
        }
        print("\(out): \(rendered.width)x\(rendered.height) from \(render)")
    }
}

extension RenderCommand: DecodeLimitDefaults {
    static let defaultMaxPixel = RunCommand.defaultMaxPixel
    static let overDecodeBudget = "such an image is a data error (status 65)"
}
