/// Rewrites the generated parts of a Markdown document and leaves the prose around them alone.
///
/// A generated part sits between an opening and a closing HTML comment, which Markdown hides:
/// `<!-- table:article -->` ... `<!-- /table:article -->` for blocks and
/// `<!-- value:payload_mb -->13.1<!-- /value:payload_mb -->` for a number inside a sentence.
/// Running it twice gives the same document, so the report can be regenerated at any time.
package enum GeneratedSections {
    package static func apply(to document: String, blocks: [String: String], values: [String: String]) throws -> String
    {
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
                throw ReportError.unclosedMarker(name: name, closing: close)
            }
            let isBlock = parts[0] == "table"
            let known = isBlock ? blocks : values
            guard let content = known[parts[1]] else {
                throw ReportError.unknownMarker(kind: parts[0], name: parts[1], known: known.keys.sorted())
            }
            output += isBlock ? "\n" + content + (content.hasSuffix("\n") ? "" : "\n") : content
            output += close
            rest = rest[closing.upperBound...]
        }
        return output + rest
    }

    /// The text between a block's markers, as last generated.
    package static func block(_ name: String, in document: String) -> String? {
        guard let open = document.range(of: "<!-- table:\(name) -->"),
            let close = document[open.upperBound...].range(of: "<!-- /table:\(name) -->")
        else { return nil }
        return String(document[open.upperBound..<close.lowerBound])
    }
}

package enum ReportError: Error, CustomStringConvertible {
    /// An input file is absent; `hint` says how to make it.
    case missing(path: String, hint: String)
    /// trials.csv has a header and no rows.
    case noRows(path: String)
    /// The folder's files are not one run's (a cut trials.csv, two runs in one folder).
    case inconsistentRun(any Error)
    case unreadable(path: String, reason: String)
    case malformed(path: String, problem: any Error)
    /// A `<!-- value:x -->` or `<!-- table:x -->` marker with no closing marker.
    case unclosedMarker(name: String, closing: String)
    case unknownMarker(kind: String, name: String, known: [String])

    /// An input file is absent (as opposed to present but unreadable or malformed).
    package var isMissingInput: Bool {
        if case .missing = self { return true }
        return false
    }

    package var description: String {
        switch self {
        case .missing(let path, let hint): return "\(path) does not exist; \(hint)"
        case .noRows(let path): return "\(path) has no rows"
        case .inconsistentRun(let error): return "\(error)"
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .malformed(let path, let problem): return "\(path): \(problem)"
        case .unclosedMarker(let name, let closing): return "\(name) is opened but never closed: add \(closing)"
        case .unknownMarker(let kind, let name, let known):
            return "unknown \(kind) '\(name)'; known: \(known.joined(separator: ", "))"
        }
    }
}
