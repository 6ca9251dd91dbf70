import Foundation

/// The article's "copies" story in one number per strategy: median peak RSS delta divided by
/// the payload's size. About 1 means the strategy holds one copy of the body at its peak, 2
/// means two; near 0 means the body never sat in memory. One column per renderer and allocator.
package enum PayloadCopiesTable {
    package static func render(_ summaries: [CellSummary]) -> String {
        var strategies: [String] = []
        var columns: [(render: RenderMode, allocator: Allocator)] = []
        var ratios: [TrialCell: Double] = [:]
        for summary in summaries {
            let cell = summary.cell
            if !strategies.contains(cell.strategy) { strategies.append(cell.strategy) }
            if !columns.contains(where: { $0 == (cell.render, cell.allocator) }) {
                columns.append((cell.render, cell.allocator))
            }
            ratios[cell] = summary.bytesHeldPerPayloadByte
        }
        let order = RenderMode.ordered(columns.map(\.render))
        columns.sort {
            (order.firstIndex(of: $0.render)!, $0.allocator.rawValue) < (
                order.firstIndex(of: $1.render)!, $1.allocator.rawValue
            )
        }

        let header = ["strategy"] + columns.map { "\($0.render.rawValue)/\($0.allocator.rawValue)" }
        let rows = strategies.map { strategy in
            [strategy]
                + columns.map { column in
                    ratios[TrialCell(strategy: strategy, render: column.render, allocator: column.allocator)]
                        .map { String(format: "%.2f", $0) } ?? "-"
                }
        }
        let title = "Bytes held per payload byte (median peak RSS delta / payload bytes), by renderer/allocator"
        return title + "\n" + TextTable.render(header: header, rows: rows)
    }
}
