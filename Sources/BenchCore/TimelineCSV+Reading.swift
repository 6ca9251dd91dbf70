/// One run's identity in timeline.csv.
package struct RunKey: Hashable, Sendable {
    package var cell: TrialCell
    package var run: Int

    package init(cell: TrialCell, run: Int) {
        self.cell = cell
        self.run = run
    }
}

extension TimelineCSV {
    /// The samples of the runs in `keep`, in file order. Other runs' lines are skipped unparsed:
    /// the file holds every sample of every run and only a few are charted.
    package static func parse(_ text: String, keep: Set<RunKey>) throws -> [RunKey: [TimelinePoint]] {
        // A run killed while appending leaves its last line cut short: the complete ones are read.
        let (text, torn) = CSV.completeLines(text)
        if torn { StandardError.write(CSV.tornLineNote(TimelineCSV.fileName)) }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).makeIterator()
        guard let headerLine = lines.next() else { throw CSVError("empty timeline: no header row") }
        let header = headerLine.split(separator: ",").map(String.init)
        // Files of this version end with a run_id column; older ones do not, and older still lack file_bytes.
        let hasFile = header.starts(with: Self.header)
        guard
            [Self.header, Self.headerWithoutFile].contains(where: {
                header == $0 || header == $0 + [TrialsCSV.runIDColumn]
            })
        else {
            throw CSVError(
                "not a timeline.csv: expected columns \(Self.header.joined(separator: ",")), found \(headerLine)"
            )
        }
        let wanted = Set(
            keep.map { "\($0.cell.strategy),\($0.cell.render.rawValue),\($0.cell.allocator.rawValue),\($0.run)," }
        )
        var points: [RunKey: [TimelinePoint]] = [:]
        var lineNumber = 1
        while let line = lines.next() {
            lineNumber += 1
            // Strategy names hold no commas, so the first four fields are a plain prefix: looked up,
            // not compared with each wanted run's (a resume or merge reads every run's samples).
            var commas = 0
            guard
                let end = line.firstIndex(where: { character in
                    if character == "," { commas += 1 }
                    return commas == 4
                }), wanted.contains(String(line[...end]))
            else { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == header.count, let render = RenderMode(name: fields[1]),
                let allocator = Allocator(rawValue: fields[2]), let run = Int(fields[3]),
                let seconds = Double(fields[5]), let resident = Int(fields[6]), let allocated = Int(fields[7])
            else {
                throw CSVError("timeline line \(lineNumber): cannot read '\(line)'")
            }
            let key = RunKey(cell: TrialCell(strategy: fields[0], render: render, allocator: allocator), run: run)
            let file = hasFile ? Int(fields[8]) : nil
            points[key, default: []].append(
                TimelinePoint(
                    seconds: seconds,
                    residentBytes: resident,
                    allocatedBytes: allocated,
                    fileBytes: file
                )
            )
        }
        return points
    }
}
