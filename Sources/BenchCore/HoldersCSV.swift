import Foundation

/// `holders.csv`: who holds each run's exact heap peak, one row per holder (blocks that share a
/// stack), largest first, then the run's small blocks (everything under the recording threshold),
/// so that a run's rows add up to its exact heap peak. Stacks are folded, outermost frame first.
package enum HoldersCSV {
    package static let fileName = "holders.csv"
    package static let header = baseHeader + ["role", "resident_bytes"]
    /// The headers still read: files from before roles and residency, and from before residency.
    static var readableHeaders: [[String]] { [header, baseHeader, baseHeader + ["role"]] }
    /// The columns of files from before roles and residency: still read, their holders without either.
    static let baseHeader = [
        "run_id", "strategy", "render", "allocator", "run", "rank", "bytes", "blocks",
        "allocated_by", "module", "stack",
    ]

    package static func render(_ results: [TrialResult], runID: String?) -> String {
        CSV.line(header) + "\n" + results.map { lines($0, runID: runID) }.joined()
    }

    /// One run's rows, each a line with its newline: appended as soon as the run ends (nothing
    /// for a run without holders).
    package static func lines(_ result: TrialResult, runID: String?) -> String {
        rows(of: result).enumerated().map { rank, holder in
            CSV.line([
                runID ?? "", result.strategy, result.render.rawValue, result.allocator.rawValue,
                String(result.run), String(rank + 1), String(holder.bytes), String(holder.blocks),
                holder.allocatedBy, holder.module, holder.foldedStack, holder.role?.rawValue ?? "",
                holder.residentBytes.map(String.init) ?? "",
            ]) + "\n"
        }.joined()
    }

    static let droppedSuffix = " large blocks the full table did not record"

    /// A run's holders, then its small blocks; nothing for a run without holders. When the child's
    /// table was full, the small blocks' line says how many large blocks went unrecorded into it.
    package static func rows(of result: TrialResult) -> [PeakHolder] {
        guard let holders = result.holders, let small = result.smallBlocksBytes else { return [] }
        let dropped = result.holdersDropped ?? 0
        let name = dropped > 0 ? "\(PeakHolder.smallBlocks) and \(dropped)\(droppedSuffix)" : PeakHolder.smallBlocks
        // The small blocks' residency is residency.csv's `small-heap-blocks` (an upper bound), not repeated here.
        return holders + [
            PeakHolder(
                bytes: small,
                blocks: 0,
                allocatedBy: name,
                module: "",
                stack: [],
                role: holders.contains { $0.role != nil } ? .other : nil
            )
        ]
    }
}

/// `holders.folded`: every run's holders as folded stacks weighted by their bytes at the peak
/// (`cell;run N;outermost;...;innermost bytes`), the input of any flame-graph tool.
package enum HoldersFolded {
    package static let fileName = "holders.folded"
    package static func render(_ results: [TrialResult]) -> String {
        var text = ""
        for result in results {
            let root = "\(result.cell.description.replacingOccurrences(of: ";", with: ","));run \(result.run)"
            for holder in HoldersCSV.rows(of: result) where holder.bytes > 0 {
                let stack = holder.stack.isEmpty ? holder.allocatedBy : holder.foldedStack
                text += "\(root);\(stack.replacingOccurrences(of: "\n", with: " ")) \(holder.bytes)\n"
            }
        }
        return text
    }
}

extension TrialResult {
    /// The run of a cell whose exact heap peak is the median (the lower middle of an even count),
    /// among the runs that have holders.
    package static func medianHolderRun(_ runs: [TrialResult]) -> TrialResult? {
        let named = runs.filter { $0.isSuccess && $0.holders != nil && $0.peakHeapExactBytes != nil }
            .sorted { ($0.peakHeapExactBytes!, $0.run) < ($1.peakHeapExactBytes!, $1.run) }
        return named.isEmpty ? nil : named[(named.count - 1) / 2]
    }
}

/// Printed under the summary: each cell's largest holders at its median run.
package enum HoldersTable {
    package static func render(_ results: [TrialResult], cells: [TrialCell], top: Int = 3) -> String {
        var text = ""
        for cell in cells {
            guard let median = TrialResult.medianHolderRun(results.filter { $0.cell == cell }),
                let peak = median.peakHeapExactBytes
            else { continue }
            text += "\(cell) run \(median.run), exact heap peak \(SummaryTable.mb(Double(peak))) MB:\n"
            let rows = HoldersCSV.rows(of: median)
            let shown = rows.dropLast().prefix(top) + [rows.last!]
            for holder in shown {
                let module = holder.module.isEmpty ? "" : "  [\(holder.module)]"
                let blocks = holder.blocks > 1 ? " (\(holder.blocks) blocks)" : ""
                text +=
                    String(format: "  %7.1f MB  ", Double(holder.bytes) / 1e6) + holder.allocatedBy + blocks + module
                    + "\n"
            }
        }
        return text.isEmpty
            ? ""
            : "Who holds the peak (largest blocks live at each cell's median exact heap peak; holders.csv has them all):\n"
                + text
    }
}

/// One run's rows of holders.csv, read back: its holders and its small blocks.
package struct HolderRun: Sendable {
    package var cell: TrialCell
    package var run: Int
    package var holders: [PeakHolder]
    package var smallBlocksBytes: Int

    package init(cell: TrialCell, run: Int, holders: [PeakHolder], smallBlocksBytes: Int) {
        self.cell = cell
        self.run = run
        self.holders = holders
        self.smallBlocksBytes = smallBlocksBytes
    }

    /// Large blocks the child's full table did not record (counted in the small blocks).
    package var dropped = 0
    /// The run's exact heap peak: what its rows add up to.
    package var totalBytes: Int { holders.reduce(smallBlocksBytes) { $0 + $1.bytes } }
}

extension HoldersCSV {
    /// Reads holders.csv back, one entry per run in the order of the file.
    package static func parse(_ text: String) throws -> [HolderRun] {
        let rows = try CSV.parse(text).filter { $0 != [""] }
        guard let first = rows.first, readableHeaders.contains(first) else {
            throw CSVError("not a holders.csv: the header must be \(header.joined(separator: ","))")
        }
        var runs: [HolderRun] = []
        for (offset, fields) in rows.dropFirst().enumerated() {
            let line = offset + 2
            guard fields.count == first.count else {
                throw CSVError("line \(line): \(fields.count) fields, the header has \(first.count)")
            }
            var role: HolderRole?
            if fields.count > baseHeader.count && !fields[baseHeader.count].isEmpty {
                guard let named = HolderRole(rawValue: fields[baseHeader.count]) else {
                    throw CSVError(
                        "line \(line): role '\(fields[baseHeader.count])' is not one of "
                            + HolderRole.allCases.map(\.rawValue).joined(separator: ", ")
                    )
                }
                role = named
            }
            guard let render = RenderMode(name: fields[2]), let allocator = Allocator(rawValue: fields[3]),
                let run = Int(fields[4]), let bytes = Int(fields[6]), let blocks = Int(fields[7]), blocks >= 0
            else {
                throw CSVError("line \(line): render, allocator, run, bytes or blocks is not valid")
            }
            let cell = TrialCell(strategy: fields[1], render: render, allocator: allocator)
            if runs.last.map({ $0.cell != cell || $0.run != run }) ?? true {
                runs.append(HolderRun(cell: cell, run: run, holders: [], smallBlocksBytes: 0))
            }
            if fields[8].hasPrefix(PeakHolder.smallBlocks) && fields[9].isEmpty && fields[10].isEmpty {
                runs[runs.count - 1].smallBlocksBytes += bytes
                let count = fields[8].dropFirst(PeakHolder.smallBlocks.count + " and ".count).prefix { $0.isNumber }
                if fields[8].hasSuffix(droppedSuffix), let dropped = Int(count) {
                    runs[runs.count - 1].dropped = dropped
                }
            } else {
                let stack =
                    fields[10].isEmpty
                    ? [] : fields[10].split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                let resident = fields.count > baseHeader.count + 1 ? Int(fields[baseHeader.count + 1]) : nil
                runs[runs.count - 1].holders.append(
                    PeakHolder(
                        bytes: bytes,
                        blocks: blocks,
                        allocatedBy: fields[8],
                        module: fields[9],
                        stack: stack,
                        role: role,
                        residentBytes: resident
                    )
                )
            }
        }
        return runs
    }
}

extension HoldersCSV {
    /// The file without the rows of runs not in `keep` (a run killed after its holders were
    /// appended but before its row was), or nil when it has none: what a resumed run appends to.
    package static func keeping(_ text: String, runs keep: Set<RunKey>) throws -> String? {
        let rows = try CSV.parse(CSV.completeLines(text).text).filter { $0 != [""] }
        guard let first = rows.first, readableHeaders.contains(first) else {
            throw CSVError("not a holders.csv: the header must be \(header.joined(separator: ","))")
        }
        let kept = try rows.dropFirst().enumerated().filter { offset, fields in
            guard fields.count == first.count, let render = RenderMode(name: fields[2]),
                let allocator = Allocator(rawValue: fields[3]), let run = Int(fields[4])
            else {
                throw CSVError("line \(offset + 2): not a holders.csv row")
            }
            let cell = TrialCell(strategy: fields[1], render: render, allocator: allocator)
            return keep.contains(RunKey(cell: cell, run: run))
        }
        guard kept.count < rows.count - 1 else { return nil }
        return ([header] + kept.map(\.element)).map { CSV.line($0) + "\n" }.joined()
    }
}
