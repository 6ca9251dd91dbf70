import BenchCore
import Foundation

/// A successful row of `cell`'s run `run` with nothing measured yet, for the tests that build rows in memory.
func okRow(_ cell: TrialCell, run: Int, pid: Int32 = 1) -> TrialResult {
    let cell = TrialCell(strategy: cell.strategy, render: cell.render, allocator: cell.allocator)
    var row = TrialResult(cell: cell, run: run, pid: pid)
    row.status = .ok
    return row
}
