import Foundation
import TestSupport
import Testing

/// `bench fixture --out` must never delete what is already there: an existing folder gets the
/// file in it (as cp does), and its other files stay. In-process (`InProcessBench`).
@Suite struct FixtureOutTests {
    static let small = ["fixture", "--width", "64", "--height", "48"]

    @Test func anExistingFolderKeepsItsFilesAndGetsTheFixtureInside() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("sub"),
            withIntermediateDirectories: true
        )
        try Data("precious".utf8).write(to: folder.appendingPathComponent("keep.txt"))
        let output = InProcessBench.run(Self.small + ["--out", folder.path])
        #expect(output.status == 0, "\(output.standardError)")
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) && isFolder.boolValue)
        #expect((try? String(contentsOf: folder.appendingPathComponent("keep.txt"), encoding: .utf8)) == "precious")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("sub").path))
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jpg") }
        #expect(written.count == 1)
        #expect(output.standardOutput.contains(folder.path + "/"))
    }

    @Test func anExistingFileIsReplaced() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("photo.jpg")
        try Data("old".utf8).write(to: file)
        let output = InProcessBench.run(Self.small + ["--out", file.path])
        #expect(output.status == 0, "\(output.standardError)")
        let bytes = try Data(contentsOf: file)
        #expect(bytes.starts(with: [0xFF, 0xD8]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["photo.jpg"])
    }
}
