import BenchCommandLine
import BenchCore
import Foundation
import Harness
import ImageServer
import Scenarios
import Testing

/// Every measured child the parent spawns starts without the command-line parser: the arguments
/// the parent builds for a trial, a scroll and the image server are the shapes `MeasuredChildEntry`
/// takes (the child's own spec file), and any other shape is left to the parser.
struct MeasuredChildEntryTests {
    let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("entry-\(UUID().uuidString)")
    let origin = URL(string: "http://127.0.0.1:9/image.jpg")!

    /// The child's command line as the parent spawns it: the executable, then `arguments(for:)`.
    func spawned<Spec: MeasuredChildSpec>(_ spec: Spec) throws -> [String] {
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        return try ["/usr/bin/bench"] + ChildProcessLauncher.arguments(for: spec)
    }

    var specFile: String { work.appendingPathComponent(ChildSpec.fileName).path }

    @Test func theParentsSpawnsAreTheEntrysChildren() throws {
        defer { try? FileManager.default.removeItem(at: work) }
        let trial = TrialSpec(
            strategy: "download",
            render: .none,
            allocator: .system,
            run: 1,
            url: origin,
            warmupURL: nil,
            workDirectory: work
        )
        #expect(MeasuredChildEntry.child(for: try spawned(trial)) == .trial(specFile: specFile))
        let scroll = ScrollSpec(
            strategy: .download,
            render: .thumbnail,
            rowURLs: [origin],
            warmupURL: nil,
            visibleRows: 1,
            rowsPerSecond: 1,
            maxConcurrent: 1,
            cacheLimitBytes: 0,
            workDirectory: work
        )
        #expect(MeasuredChildEntry.child(for: try spawned(scroll)) == .listScroll(specFile: specFile))
        let server = ServerSpec(
            strategy: "download",
            render: .none,
            originURL: origin,
            fetchThreads: 1,
            renderThreads: 1,
            workDirectory: work
        )
        #expect(MeasuredChildEntry.child(for: try spawned(server)) == .server(specFile: specFile))
    }

    @Test(arguments: [
        ["bench", "_trial", "--stdout", "--spec-file", "spec.json"],
        ["bench", "_trial", "--spec-file"],
        ["bench", "_trial", "--spec", "spec.json"],
        ["bench", "run", "--spec-file", "spec.json"],
        ["bench", "_trial-spec", "--spec-file", "spec.json"],
        ["bench", "--spec-file", "spec.json", "_trial"],
    ])
    func otherShapesGoToTheParser(arguments: [String]) {
        #expect(MeasuredChildEntry.child(for: arguments) == nil)
    }
}
