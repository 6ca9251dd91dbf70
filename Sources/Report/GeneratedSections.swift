/// Rewrites the generated parts of a Markdown document and leaves the prose around them alone.
///
/// A generated part sits between an opening and a closing HTML comment, which Markdown hides:
/// `<!-- table:article -->` ... `<!-- /table:article -->` for blocks and
/// `<!-- value:payload_mb -->13.1<!-- /value:payload_mb -->` for a number inside a sentence.
/// Running it twice gives the same document, so the report can be regenerated at any time.
public enum GeneratedSections {
    public static func apply(to document: String, blocks: [String: String], values: [String: String]) throws -> String {
        var output = ""
        var rest = Substring(document)
        while let open = rest.range(of: "<!-- ") {
            guard let openEnd = rest[open.upperBound...].range(of: " -->") else { break }
            let name = String(rest[open.upperBound..<openEnd.lowerBound])
            output += rest[..<openEnd.upperBound]
            rest = rest[openEnd.upperBound...]
            let parts = name.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, ["table", "value"].contains(parts[0]) else { continue }  // an ordinary comment

            let close = "<!-- /\(name) -->"
            guard let closing = rest.range(of: close) else {
                throw ReportError("\(name) is opened but never closed: add \(close)")
            }
            let isBlock = parts[0] == "table"
            let known = isBlock ? blocks : values
            guard let content = known[parts[1]] else {
                throw ReportError("unknown \(parts[0]) '\(parts[1])'; known: \(known.keys.sorted().joined(separator: ", "))")
            }
            output += isBlock ? "\n" + content + (content.hasSuffix("\n") ? "" : "\n") : content
            output += close
            rest = rest[closing.upperBound...]
        }
        return output + rest
    }

    /// The text between a block's markers, as last generated.
    public static func block(_ name: String, in document: String) -> String? {
        guard let open = document.range(of: "<!-- table:\(name) -->"),
              let close = document[open.upperBound...].range(of: "<!-- /table:\(name) -->") else { return nil }
        return String(document[open.upperBound..<close.lowerBound])
    }
}

public struct ReportError: Error, CustomStringConvertible {
    public var description: String
    /// An input file is absent (as opposed to present but unreadable or malformed).
    public var isMissingInput = false
    public init(_ description: String) { self.description = description }
}
