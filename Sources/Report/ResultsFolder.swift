import Foundation

/// The files of a results folder, named once for everything that writes or reads them.
public protocol ResultsFolder {
    var directory: URL { get }
}

extension ResultsFolder {
    public var trialsCSV: URL { directory.appendingPathComponent("trials.csv") }
    public var timelineCSV: URL { directory.appendingPathComponent("timeline.csv") }
    public var trialsJSON: URL { directory.appendingPathComponent("trials.json") }
    public var summaryCSV: URL { directory.appendingPathComponent("summary.csv") }
    public var sweepCSV: URL { directory.appendingPathComponent("sweep.csv") }
    public var environmentText: URL { directory.appendingPathComponent("environment.txt") }
    /// scripts/validate.py's comparison with heaptrack, massif and time -v.
    public var validationCSV: URL { directory.appendingPathComponent("validation.csv") }
    /// scripts/cold-warm.sh's two runs (warm/ and cold/), when measured.
    public var coldWarmFolder: URL { directory.appendingPathComponent("cold-warm", isDirectory: true) }
}
