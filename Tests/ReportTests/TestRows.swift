import BenchCore
import Foundation

/// A successful row of `cell`'s run `run` with nothing measured yet, for the tests that build rows in memory.
func okRow(_ cell: TrialCell, run: Int, pid: Int32 = 1) -> TrialResult {
    let spec = TrialSpec(
        strategy: cell.strategy,
        render: cell.render,
        allocator: cell.allocator,
        run: run,
        url: URL(string: "http://127.0.0.1/x")!,
        warmupURL: nil,
        workDirectory: URL(fileURLWithPath: "/tmp")
    )
    var row = TrialResult(spec: spec, pid: pid)
    row.status = .ok
    return row
}
