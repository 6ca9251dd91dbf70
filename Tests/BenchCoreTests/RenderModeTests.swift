import BenchCore
import Foundation
import Testing

/// A renderer a user registers is named in rows like a built-in one: its rows must read back,
/// sort after the built-in renderers, and a name that no renderer could have must still be refused.
@Suite struct RenderModeTests {
    static func row(render: String) -> TrialResult {
        let cell = TrialCell(strategy: "download", render: RenderMode(rawValue: render), allocator: .system)
        var result = TrialResult(cell: cell, run: 1, pid: 42)
        result.status = .ok
        return result
    }

    @Test func aUsersRendererRoundTripsThroughTrialsCSV() throws {
        let text = TrialsCSV.render([Self.row(render: "decode-then-resize"), Self.row(render: "full")])
        let rows = try TrialsCSV.parse(text)
        #expect(rows.map(\.render.rawValue) == ["decode-then-resize", "full"])
    }

    @Test(arguments: ["", "two words", "a,b"])
    func aRenderNoRendererCouldHaveIsRefused(name: String) throws {
        let text = TrialsCSV.render([Self.row(render: name)])
        #expect(throws: CSVError.self) { try TrialsCSV.parse(text) }
    }

    @Test func builtInRenderersComeFirstThenTheOthersByName() {
        let order = RenderMode.ordered([
            RenderMode(rawValue: "zoom"), .thumbnail, RenderMode(rawValue: "decode-then-resize"), .none, .thumbnail,
        ])
        #expect(order.map(\.rawValue) == ["none", "thumbnail", "decode-then-resize", "zoom"])
    }
}
