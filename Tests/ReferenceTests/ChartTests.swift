import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `scripts/plots.sh` on a copy of the committed results, with the real `bench report` and gnuplot:
/// every chart is drawn as a real PNG and a well-formed SVG, and gnuplot says nothing on stderr.
@Suite(.serialized) struct ChartTests {
    static let charts = ["article", "timeline", "sweep", "matrix", "list-scroll"]

    /// Draws into a temporary copy so the committed charts are never touched by a test, keeps the
    /// charts' bytes and removes the copy.
    static let drawn: (charts: [String: Data], status: Int32, output: String) = {
        let scratch = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A quote and a space in the folder's name: paths reach gnuplot as string literals.
        let folder = scratch.appendingPathComponent("it's results")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["trials.csv", "timeline.csv", "sweep.csv", "trials.json", "environment.txt", "list-scroll.csv"] {
            try? FileManager.default.copyItem(
                at: packageRoot.appendingPathComponent("results/\(name)"),
                to: folder.appendingPathComponent(name)
            )
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [packageRoot.appendingPathComponent("scripts/plots.sh").path, folder.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["BENCH": BenchProcess.executable]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return ([:], -1, "cannot start plots.sh: \(error)") }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var charts: [String: Data] = [:]
        for chart in Self.charts {
            for format in ["png", "svg"] {
                charts["\(chart).\(format)"] = try? Data(
                    contentsOf: folder.appendingPathComponent("charts/\(chart).\(format)")
                )
            }
        }
        return (charts, process.terminationStatus, output)
    }()

    func file(_ chart: String, _ format: String) throws -> Data {
        try #require(Self.drawn.charts["\(chart).\(format)"], "charts/\(chart).\(format) was not drawn")
    }

    @Test func plotsScriptSucceedsWithoutGnuplotWarnings() {
        #expect(Self.drawn.status == 0, "\(Self.drawn.output)")
        #expect(!Self.drawn.output.lowercased().contains("warning"), "\(Self.drawn.output)")
    }

    @Test(arguments: charts)
    func pngIsARealNonTrivialImage(chart: String) throws {
        let data = try file(chart, "png")
        #expect(Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "PNG signature")
        // IHDR follows the signature: width and height, big-endian.
        let width = data[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = data[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width >= 800 && height >= 400, "\(width)x\(height)")
        #expect(data.count > 20_000, "\(data.count) bytes is too small for a drawn chart")
    }

    @Test(arguments: charts)
    func svgIsWellFormedWithAnSVGRootAndDrawing(chart: String) throws {
        let data = try file(chart, "svg")
        let document = try XMLDocument(data: data, options: [])
        #expect(document.rootElement()?.name == "svg")
        let paths = try document.nodes(forXPath: "//*[local-name()='path']")
        #expect(paths.count >= 10, "only \(paths.count) paths")
        #expect(data.count > 10_000)
    }
}
