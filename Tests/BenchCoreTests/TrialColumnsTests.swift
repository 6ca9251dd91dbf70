import BenchCore
import Testing

/// trials.csv's columns are declared once (`TrialsCSV.columns`): the writer, the reader, docs/OUTPUT.md's
/// table and `bench list --output-files --json` read them there. These check the declarations hold
/// together: a figure read into another field than it is written from, or not read back, fails here.
@Suite struct TrialColumnsTests {
    static let cell = TrialCell(strategy: "download", render: .full, allocator: .jemalloc)

    /// Each figure that is read back is written from the field it was read into, and that field is
    /// its own: reading it changes no other column.
    @Test func eachFigureIsWrittenFromAFieldOfItsOwn() throws {
        let empty = TrialResult(cell: Self.cell, run: 1, pid: 1)
        for (offset, column) in TrialsCSV.columns.enumerated() {
            guard let read = column.read else { continue }
            let sample = column.column.unit == .flag ? "1" : String(1000 + offset)
            var result = empty
            try read(&result, sample)
            let written = column.write(result)
            #expect(Double(written) == Double(sample), "\(column.name): read \(sample), wrote '\(written)'")
            let changed = TrialsCSV.columns.filter { $0.name != column.name && $0.read != nil }
                .filter { $0.write(result) != $0.write(empty) }.map(\.name)
            #expect(changed.isEmpty, "reading \(column.name) also set \(changed)")
        }
    }

    /// A row written with every figure set comes back with every figure as it was written.
    @Test func aRowComesBackWithEveryFigure() throws {
        var result = TrialResult(cell: Self.cell, run: 3, pid: 4242)
        for (offset, column) in TrialsCSV.columns.enumerated() {
            try column.read?(&result, column.column.unit == .flag ? "0" : String(2000 + offset))
        }
        let parsed = try #require(try TrialsCSV.parse(TrialsCSV.render([result], runID: "run-1")).first)
        for column in TrialsCSV.columns where column.write(result) != "" {
            #expect(column.write(parsed) == column.write(result), "\(column.name)")
        }
        let unset = TrialsCSV.columns.filter { $0.write(result) == "" }.map(\.name)
        #expect(unset == ["error", "peak_holder", "attributed_bytes"], "only these are not figures read back")
    }

    /// Column names are unique, and every peak and final memory figure is one a rise makes worse.
    @Test func namesAreUniqueAndMemoryPeaksAreLowerIsBetter() {
        let names = TrialsCSV.columns.map(\.name)
        #expect(Set(names).count == names.count)
        let peaks = TrialsCSV.columns.filter {
            ($0.name.hasPrefix("peak_") || $0.name.hasPrefix("final_")) && $0.column.unit == .bytes
        }
        #expect(peaks.count == 8)
        #expect(peaks.allSatisfy { $0.column.polarity == .lowerIsBetter }, "\(peaks.map(\.name))")
    }
}
