import Foundation

/// Minimal RFC 4180 CSV: fields quoted only when they must be.
package enum CSV {
    package static func line(_ fields: [String]) -> String {
        fields.map(escape).joined(separator: ",")
    }

    package static func escape(_ field: String) -> String {
        // By scalar: "\r\n" is one Character, equal to neither "\n" nor "\r", and must be quoted too.
        guard field.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            return field
        }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Parses CSV text into rows of fields (quoted fields may hold commas, quotes and newlines).
    package static func parse(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var iterator = Array(text.unicodeScalars).makeIterator()
        var pending: Unicode.Scalar? = iterator.next()
        while let scalar = pending {
            pending = iterator.next()
            if quoted {
                if scalar == "\"" {
                    if pending == "\"" {
                        field.unicodeScalars.append("\"")
                        pending = iterator.next()
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty: quoted = true
            case ",":
                row.append(field)
                field = ""
            case "\r": continue
            case "\n":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            default: field.unicodeScalars.append(scalar)
            }
        }
        if quoted { throw CSVError("unterminated quoted field") }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }

    /// The rows of a file whose header must be `header` exactly, each with its line's name for an
    /// error ("FILE line N"; the header is line 1), blank lines left out.
    package static func rows(
        of text: String,
        header: [String],
        fileName: String
    ) throws -> [(line: String, fields: [String])] {
        let table = try parse(text).filter { $0 != [""] }
        guard table.first == header else {
            throw CSVError("not a \(fileName): the header must be \(header.joined(separator: ","))")
        }
        return table.dropFirst().enumerated().map { ("\(fileName) line \($0.offset + 2)", $0.element) }
    }
}

package struct CSVError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
