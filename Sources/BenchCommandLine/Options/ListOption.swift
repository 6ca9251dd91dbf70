import ArgumentParser

/// A list option: repeated flags, comma-separated values, or both (`--strategy a --strategy b`,
/// `--strategy a,b`, `--strategy a,b --strategy c`), one rule for every command: at least one
/// value, no empty entry (`a,,b` or a trailing comma is a typo, not a shorter list), and no value
/// twice (each value is measured once, as one combination).
enum ListOption {
    /// Said once in every list option's help.
    static let forms = "repeat the flag or separate values with commas"

    /// The entries of one occurrence of the option, trimmed; `example` shows a valid list in the error.
    static func entries(_ text: String, option: String, example: String) throws -> [String] {
        let entries = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard entries.contains(where: { !$0.isEmpty }) else {
            throw ValidationError("\(option) is empty; give at least one value, comma-separated, e.g. \(example)")
        }
        guard !entries.contains("") else {
            throw ValidationError(
                "\(option) has an empty entry in '\(text)'; separate values with single commas, e.g. \(example)"
            )
        }
        return entries
    }

    /// One occurrence's entries, each parsed by `parse` (nil: not a valid value, and the error
    /// names `choices`): the transform of a list option, so ArgumentParser exits 64 with the message.
    static func parse<Value>(
        _ text: String,
        option: String,
        example: String,
        choices: @autoclosure () -> String,
        _ parse: (String) -> Value?
    ) throws -> [Value] {
        try entries(text, option: option, example: example).map { entry in
            guard let value = parse(entry) else {
                throw ValidationError("\(option) '\(entry)' is not valid; valid: \(choices())")
            }
            return value
        }
    }

    /// Every occurrence's values, in the order given, each parsed as `parse` does.
    static func values<Value: Equatable>(
        _ occurrences: [String],
        option: String,
        example: String,
        choices: @autoclosure () -> String,
        _ parse: (String) -> Value?
    ) throws -> [Value] {
        let values = try occurrences.flatMap {
            try Self.parse($0, option: option, example: example, choices: choices(), parse)
        }
        let entries = try occurrences.flatMap { try Self.entries($0, option: option, example: example) }
        try requireDistinct(values, entries: entries, option: option)
        return values
    }

    /// Refuses a value given twice: it would be measured twice, as two combinations.
    static func requireDistinct<Value: Equatable>(_ values: [Value], entries: [String], option: String) throws {
        for (index, value) in values.enumerated() where values[..<index].contains(value) {
            throw ValidationError(
                "\(option) names '\(entries[index])' twice; each value is measured once, give it once"
            )
        }
    }
}
