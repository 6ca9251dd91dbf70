/// The format of a results folder, recorded in its settings.json (`format`): the one place that
/// says which this bench writes and which it still reads. Readers read the current format and the
/// one before, and refuse any other, naming it and the command that measures it again.
///
/// - 1: settings.json records `format`; the list scroll's rows are in scenario.csv.
/// - 2: the list scroll's rows are in list-scroll.csv, and its folder records settings.json too.
package enum ResultsFormat {
    /// The format this bench writes.
    package static let current = 2
    /// The one before, still read.
    package static let previous = current - 1
    /// The formats this bench reads, "1 and 2".
    package static var readable: String { "\(previous) and \(current)" }
}
