import BenchCore
import Foundation

/// The files of a results folder, named once for everything that writes or reads them.
package protocol ResultsFolder {
    var directory: URL { get }
}

extension ResultsFolder {
    package var trialsCSV: URL { directory.appendingPathComponent(TrialsCSV.fileName) }
    package var timelineCSV: URL { directory.appendingPathComponent(TimelineCSV.fileName) }
    package var trialsJSON: URL { directory.appendingPathComponent(JSONExport.fileName) }
    package var summaryCSV: URL { directory.appendingPathComponent(SummaryCSV.fileName) }
    package var sweepCSV: URL { directory.appendingPathComponent(SweepCSV.fileName) }
    package var environmentText: URL { directory.appendingPathComponent("environment.txt") }
    /// scripts/validate.py's comparison with heaptrack, massif and time -v.
    package var validationCSV: URL { directory.appendingPathComponent("validation.csv") }
    /// scripts/cold-warm.sh's two runs (warm/ and cold/), when measured.
    package var coldWarmFolder: URL { directory.appendingPathComponent("cold-warm", isDirectory: true) }
}
