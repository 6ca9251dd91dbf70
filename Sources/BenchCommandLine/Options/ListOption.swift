import ArgumentParser

/// A comma-separated option (`--sizes 1,4,16`, `--strategy data,download`): at least one value,
/// no empty entry (`a,,b` or a trailing comma is a typo, not a shorter list), and, where each
/// value is measured once, no value twice.
enum ListOption {
    /// The entries of `text`, trimmed; `example` shows a valid list in the error.
    static func entries(_ text: String, option: String, example: String) throws -> [String] {
        let entries = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard entries.contains(where: { !$0.isEmpty }) else {
            throw ValidationError("\(option) is empty; give at least one value, comma-separated, e.g. \(example)")
        }
        guard !entries.contains("") else {
            throw ValidationError("\(option) has an empty entry in '\(text)'; separate values with single commas, e.g. \(example)")
        }
        return entries
    }

    /// Refuses a value given twice: it would be measured twice, as two combinations.
    static func requireDistinct<Value: Equatable>(_ values: [Value], entries: [String], option: String) throws {
        for (index, value) in values.enumerated() where values[..<index].contains(value) {
            throw ValidationError("\(option) names '\(entries[index])' twice; each value is measured once, give it once")
        }
    }
}
