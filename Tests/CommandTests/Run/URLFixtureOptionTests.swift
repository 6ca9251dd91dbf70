import Foundation
import TestSupport
import Testing

/// The fixture options shape the embedded server's image: with `--url` they would be ignored,
/// so they are refused, as `--bandwidth` is. Options only: parsed and run in the test's process.
@Suite struct URLFixtureOptionTests {
    /// Each fixture option with --url is a usage error that says it cannot apply to --url.
    @Test(arguments: [
        ["--encoding", "png-rgb"], ["--width", "640"], ["--height", "480"], ["--quality", "50"],
        ["--progressive"], ["--seed", "7"], ["--fixture-cache", "/tmp/elsewhere"],
    ])
    func fixtureOptionsWithURLAreRefused(option: [String]) throws {
        let output = InProcessBench.parse(
            ["run", "--url", "http://127.0.0.1:1/x.jpg", "--out", "out"] + PlainMessageTests.quick + option
        )
        #expect(output.status == 64, "\(option): \(output.status) \(output.standardError)")
        #expect(
            output.standardError.contains(
                "\(option[0]) shapes the embedded server's fixture and cannot apply to --url"
            ),
            "\(option): \(output.standardError)"
        )
    }

    /// The fixture options still work without --url, defaults included when given explicitly.
    @Test func fixtureOptionsWithoutURLStillApply() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = InProcessBench.run(
            ["run", "--width", "320", "--height", "240", "--quality", "85", "--out", folder.path]
                + PlainMessageTests.quick
        )
        #expect(output.status == 0, "\(output.standardError)")
    }
}
